package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A registry file that is not as the registry left it is a start-up error, the file left as it is, and the registry
 * never starts empty over it; the one exception is a single frame past the recorded end (a write a crash ended before
 * it returned), which is cut off.
 */
class DamagedFileTest {
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(LogRegistry.FILE);
    }

    private void seed() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            for (int i = 1; i <= 5; i++) {
                r.insert(Samples.record("inst-" + i, i));
            }
        }
    }

    private RegistryException assertRefusedAndUntouched() throws Exception {
        byte[] before = Files.readAllBytes(file());
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(e.getMessage().startsWith("registry: "), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file()), "the damaged file is left as it was");
        return e;
    }

    private void assertAllFive() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            for (int i = 1; i <= 5; i++) {
                assertEquals(Samples.record("inst-" + i, i),
                        assertInstanceOf(Lookup.Found.class, r.get("inst-" + i)).record());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 9})
    void aFileCutShortIsRefused(int fraction) throws Exception {
        seed();
        byte[] all = Files.readAllBytes(file());
        Files.write(file(), Arrays.copyOf(all, LogRegistry.HEAD_BYTES + (all.length - LogRegistry.HEAD_BYTES) / fraction));
        assertTrue(assertRefusedAndUntouched().getMessage().contains("shorter than its recorded end"));
    }

    @Test
    void aFileCutAtAFrameBoundaryIsRefused() throws Exception {
        // A cut no frame's check can see: only the head's recorded end tells that the last writes are missing.
        seed();
        List<RawLog.Frame> frames = RawLog.frames(dir);
        byte[] all = Files.readAllBytes(file());
        Files.write(file(), Arrays.copyOf(all, (int) frames.get(frames.size() - 1).offset()));
        assertTrue(assertRefusedAndUntouched().getMessage().contains("shorter than its recorded end"));
    }

    @Test
    void oneFramePastTheRecordedEndWholeOrInPartIsAWriteThatNeverReturnedAndIsCutOff() throws Exception {
        seed();
        byte[] before = Files.readAllBytes(file());
        RecordMac mac = new RecordMac(Files.readAllBytes(dir.resolve(LogRegistry.KEY_FILE)));
        String key = Slots.key("inst-1", 2);
        byte[] frame = LogRegistry.frame(LogRegistry.PUT, key,
                RecordCodec.encodeRecord(mac, key, Samples.record("inst-1", 99), 2));
        for (int cut : new int[] {1, 3, 4, 11, 12, 13, 40, frame.length / 2, frame.length - 1, frame.length}) {
            Files.write(file(), before);
            RawLog.appendUnsigned(dir, Arrays.copyOf(frame, cut));
            assertAllFive();
            assertArrayEquals(before, Files.readAllBytes(file()), "cut off again: " + cut + " bytes");
        }
        // A head the crash left unwritten (zeros) with part of the frame's value behind it.
        Files.write(file(), before);
        byte[] unwrittenHead = frame.clone();
        Arrays.fill(unwrittenHead, 0, LogRegistry.FRAME_HEADER_BYTES, (byte) 0);
        RawLog.appendUnsigned(dir, unwrittenHead);
        assertAllFive();
        assertArrayEquals(before, Files.readAllBytes(file()));
    }

    @Test
    void moreThanOneFramePastTheRecordedEndIsRefused() throws Exception {
        // Two writes can never be past it (each records its end before the next begins): appended by someone else.
        seed();
        byte[] one = LogRegistry.frame(LogRegistry.DROP, "inst-1", null);
        RawLog.appendUnsigned(dir, one);
        RawLog.appendUnsigned(dir, LogRegistry.frame(LogRegistry.DROP, "inst-2", null));
        assertTrue(assertRefusedAndUntouched().getMessage().contains("past its recorded end"));
        // Zeros longer than any frame, too.
        seed2();
        RawLog.appendUnsigned(dir, new byte[LogRegistry.FRAME_HEADER_BYTES + LogRegistry.MAX_PAYLOAD_BYTES + 1]);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("past its recorded end"));
    }

    private void seed2() throws Exception {
        Files.delete(file());
        Files.delete(dir.resolve(LogRegistry.KEY_FILE));
        seed();
    }

    @Test
    void aHeadWhoseRecordedEndWasChangedIsRefused() throws Exception {
        seed();
        byte[] all = Files.readAllBytes(file());
        long end = ByteBuffer.wrap(all, LogRegistry.MAGIC.length, 8).getLong();
        ByteBuffer.wrap(all).putLong(LogRegistry.MAGIC.length, end - 1);
        Files.write(file(), all);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("fails its MAC"));
    }

    @Test
    void aFrameWhoseKeyIsDamagedRefusesTheOpen() throws Exception {
        // Its value may still be whole, but whose it is cannot be told: no instance may silently vanish.
        seed();
        RawLog.Frame second = RawLog.frames(dir).get(1);
        byte[] all = Files.readAllBytes(file());
        all[(int) second.offset() + LogRegistry.FRAME_HEADER_BYTES + 2] ^= 0x01;
        Files.write(file(), all);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("fails its check"));
    }

    @Test
    void aFrameOfImpossibleLengthBeforeTheRecordedEndRefusesTheOpen() throws Exception {
        seed();
        RawLog.Frame second = RawLog.frames(dir).get(1);
        byte[] all = Files.readAllBytes(file());
        ByteBuffer.wrap(all).putInt((int) second.offset(), Integer.MAX_VALUE);
        Files.write(file(), all);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("impossible length"));
    }

    @Test
    void aWellFormedFrameOfNoKnownKindRefusesTheOpen() throws Exception {
        seed();
        RawLog.appendUnsigned(dir, LogRegistry.frame((byte) 9, "inst-1", null));
        RawLog.sign(dir);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("unknown kind"));
    }

    @Test
    void aGarbageHeadIsRefused() throws Exception {
        seed();
        byte[] all = Files.readAllBytes(file());
        Arrays.fill(all, 0, 256, (byte) 0x5a);
        Files.write(file(), all);
        assertRefusedAndUntouched();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 8, LogRegistry.HEAD_BYTES - 1, 100})
    void aTinyFileIsRefusedNotReinitialised(int size) throws Exception {
        seed();
        Files.write(file(), new byte[size]);
        assertRefusedAndUntouched();
    }

    @Test
    void aFileOfAnotherFormatIsRefused() throws Exception {
        // Such as the Chronicle Map file of an agent before this format: never taken for an empty registry.
        seed();
        byte[] other = new byte[64 * 1024];
        new java.util.Random(7).nextBytes(other);
        Files.write(file(), other);
        assertTrue(assertRefusedAndUntouched().getMessage().contains("not a registry file this agent can read"));
    }

    @Test
    void aFileThatIsADirectoryIsRefused() throws Exception {
        seed();
        Files.delete(file());
        Files.createDirectory(file());
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
    }
}
