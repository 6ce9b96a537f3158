package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A damaged map file is a start-up error; the registry never starts empty over it. */
class CorruptMapTest {
    @TempDir
    Path dir;

    private Path map() {
        return dir.resolve(ChronicleRegistry.MAP_FILE);
    }

    private void seed() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            for (int i = 1; i <= 5; i++) {
                r.insert(Samples.record("inst-" + i, i));
            }
        }
    }

    private void assertRefusedAndUntouched(boolean afterCrash) throws Exception {
        if (afterCrash) {
            Files.deleteIfExists(dir.resolve(ChronicleRegistry.CLEAN_FILE));
        }
        byte[] before = Files.readAllBytes(map());
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(e.getMessage().startsWith("registry: "), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(map()), "the damaged file is left as it was");
    }

    @Test
    void aTruncatedFileIsRefused() throws Exception {
        seed();
        byte[] all = Files.readAllBytes(map());
        Files.write(map(), Arrays.copyOf(all, all.length / 3));
        assertRefusedAndUntouched(false);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 9})
    void afterACrashATruncatedFileIsRefusedOrLosesNoInstance(int fraction) throws Exception {
        seed();
        // Chronicle's recovery re-extends a file cut in its unused tail.
        byte[] all = Files.readAllBytes(map());
        cutAfterCrash(all.length / fraction);
    }

    @Test
    void afterACrashAFileCutThroughARecordIsRefusedOrLosesNoInstance() throws Exception {
        seed();
        byte[] all = Files.readAllBytes(map());
        byte[] marker = "\"hello 3\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        int at = -1;
        for (int i = 0; i + marker.length <= all.length && at < 0; i++) {
            if (Arrays.equals(all, i, i + marker.length, marker, 0, marker.length)) {
                at = i;
            }
        }
        assertTrue(at > 0, "record marker not found");
        cutAfterCrash(at);
    }

    /** Cuts the file at {@code length} as if the crash had lost its tail; never an absent instance after. */
    private void cutAfterCrash(int length) throws Exception {
        byte[] all = Files.readAllBytes(map());
        Files.write(map(), Arrays.copyOf(all, length));
        Files.delete(dir.resolve(ChronicleRegistry.CLEAN_FILE));
        byte[] before = Files.readAllBytes(map());
        Registry r;
        try {
            r = Registry.open(dir, 10);
        } catch (RegistryException e) {
            assertArrayEquals(before, Files.readAllBytes(map()), "a refused file is left as it was");
            return;
        }
        try (r) {
            for (int i = 1; i <= 5; i++) {
                Lookup l = r.get("inst-" + i);
                assertTrue(l instanceof Lookup.Found || l instanceof Lookup.Tampered, "inst-" + i + ": " + l);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aGarbageHeaderIsRefused(boolean afterCrash) throws Exception {
        seed();
        byte[] all = Files.readAllBytes(map());
        Arrays.fill(all, 0, 256, (byte) 0x5a);
        Files.write(map(), all);
        assertRefusedAndUntouched(afterCrash);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 100})
    void aTinyFileIsRefusedNotReinitialised(int size) throws Exception {
        seed();
        Files.write(map(), new byte[size]);
        assertRefusedAndUntouched(false);
    }

    @Test
    void aChronicleMapThatIsNotARegistryIsRefused() throws Exception {
        seed();
        Files.delete(map());
        ChronicleRegistry.builder(10).createPersistedTo(map().toFile()).close();
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(e.getMessage().contains("no registry sentinel"), e.getMessage());
    }

    @Test
    void aMapFileThatIsADirectoryIsRefused() throws Exception {
        seed();
        Files.delete(map());
        Files.createDirectory(map());
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }
}
