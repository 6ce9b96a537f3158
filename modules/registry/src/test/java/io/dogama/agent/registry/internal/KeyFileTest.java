package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFileTest {
    @TempDir
    Path dir;

    private Path key() {
        return dir.resolve(LogRegistry.KEY_FILE);
    }

    private Path map() {
        return dir.resolve(LogRegistry.FILE);
    }

    private void seed() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
        }
    }

    private String openFails() {
        return assertThrows(RegistryException.class, () -> Registry.open(dir, 10)).getMessage();
    }

    private static byte[] sha(Path p) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
    }

    @Test
    void theFirstStartGeneratesAPrivate32ByteKey() throws Exception {
        seed();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key())));
        assertEquals(32, Files.size(key()));
        assertFalse(Files.exists(dir.resolve(LogRegistry.KEY_FILE + ".tmp")));
    }

    @Test
    void aMissingKeyWithExistingRecordsIsAStartUpErrorAndNothingIsRecreated() throws Exception {
        seed();
        byte[] before = sha(map());
        Files.delete(key());
        String msg = openFails();
        assertTrue(msg.contains("key missing while records exist"), msg);
        assertFalse(Files.exists(key()), "no new key may be generated over existing records");
        assertArrayEquals(before, sha(map()), "the map file is untouched");
    }

    @Test
    void aWrongKeyIsAStartUpError() throws Exception {
        seed();
        byte[] other = new byte[32];
        new SecureRandom().nextBytes(other);
        Files.write(key(), other);
        String msg = openFails();
        assertTrue(msg.contains("registry key does not match"), msg);
    }

    @Test
    void aKeyReadableByOthersIsRefused() throws Exception {
        seed();
        for (String mode : new String[] {"rw-r--r--", "rw----r--", "rw--w----", "rwx---rwx"}) {
            Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString(mode));
            String msg = openFails();
            assertTrue(msg.contains("mode 0600"), mode + ": " + msg);
        }
        Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString("r--------"));
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Found.class, r.get("alpha-1"), "a read-only key (0400) is fine");
        }
    }

    @Test
    void aKeyOfTheWrongSizeIsRefused() throws Exception {
        seed();
        byte[] good = Files.readAllBytes(key());
        for (int n : new int[] {0, 31, 33, 64}) {
            byte[] v = new byte[n];
            System.arraycopy(good, 0, v, 0, Math.min(n, good.length));
            Files.write(key(), v);
            String msg = openFails();
            assertTrue(msg.contains("exactly 32 bytes"), n + ": " + msg);
        }
    }

    @Test
    void aKeyThatIsNotARegularFileIsRefused() throws Exception {
        seed();
        Path real = dir.resolve("elsewhere.key");
        Files.move(key(), real);
        Files.createSymbolicLink(key(), real);
        assertTrue(openFails().contains("not a regular file"));
        Files.delete(key());
        Files.createDirectory(key());
        assertTrue(openFails().contains("not a regular file"));
    }

    @Test
    void aKeyWithoutARegistryIsRefusedNotAnEmptyRegistryMadeWithIt() throws Exception {
        // The registry removed (or moved) while its key stays: a new empty one would forget every instance.
        seed();
        Files.delete(map());
        String msg = openFails();
        assertTrue(msg.contains("exists but registry.dat does not"), msg);
        assertFalse(Files.exists(map()), "no registry is made");
        // A key put there by hand, with no registry at all, the same.
        Files.delete(key());
        byte[] mine = new byte[32];
        new SecureRandom().nextBytes(mine);
        Files.write(key(), mine);
        Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString("rw-------"));
        assertTrue(openFails().contains("exists but registry.dat does not"));
        // Beside a temporary file that is not the empty registry its creation would have left, the same.
        Files.write(dir.resolve(LogRegistry.TEMP_FILE), new byte[LogRegistry.HEAD_BYTES]);
        assertTrue(openFails().contains("exists but registry.dat does not"));
        assertTrue(Files.exists(dir.resolve(LogRegistry.TEMP_FILE)), "left for the operator");
    }
}
