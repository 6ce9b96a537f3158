package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Someone without {@code registry.key} rewrites frames before the recorded end, with valid CRCs (CRC-32C is unkeyed)
 * and authentic record values taken from the file itself, and leaves the head as it is. Without the chain in the head
 * each case opened without a word (the outcome in its comment); each must refuse the open, the file left as it is.
 */
class ForgedFramesTest {
    @TempDir
    Path dir;

    /** Lays {@code frames}, then a throw-away PUT "pad#0" and DROP "pad", exactly over [offset, offset+span). */
    private void overwrite(long offset, int span, byte[]... frames) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            out.write(f);
        }
        byte[] dropPad = LogRegistry.frame(LogRegistry.DROP, "pad", null); // 17 bytes
        int putPadFixed = LogRegistry.FRAME_HEADER_BYTES + 2 + "pad#0".length(); // 19 bytes
        int padValue = span - out.size() - dropPad.length - putPadFixed;
        assertTrue(padValue >= 0, "region too small");
        out.write(LogRegistry.frame(LogRegistry.PUT, "pad#0", new byte[padValue]));
        out.write(dropPad);
        byte[] all = Files.readAllBytes(RawLog.file(dir));
        byte[] laid = out.toByteArray();
        System.arraycopy(laid, 0, all, (int) offset, span);
        Files.write(RawLog.file(dir), all);
    }

    private void assertRefused() throws Exception {
        byte[] before = Files.readAllBytes(RawLog.file(dir));
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10).close());
        assertTrue(e.getMessage().contains("not the ones its head vouches for"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(RawLog.file(dir)), "the file is left as it was");
    }

    private RawLog.Frame lastFrame() throws Exception {
        List<RawLog.Frame> frames = RawLog.frames(dir);
        return frames.get(frames.size() - 1);
    }

    private int spanToEnd(RawLog.Frame f) throws Exception {
        return (int) (Files.size(RawLog.file(dir)) - f.offset());
    }

    @Test
    void aForgedRemovalIsRefusedNotObeyed() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.insert(Samples.record("bravo-1", 2));
            r.replace(1, Samples.record("alpha-1", 3)); // last frame: PUT alpha-1#0, generation 2
        }
        RawLog.Frame last = lastFrame();
        overwrite(last.offset(), spanToEnd(last), LogRegistry.frame(LogRegistry.DROP, "alpha-1", null));
        // Without the chain: alpha-1 Absent (silently vanished), bravo-1 Found, nothing Tampered.
        assertRefused();
    }

    @Test
    void aSupersedingFrameBlankedOutIsRefusedNotARollback() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.replacing("alpha-1", 2));
        }
        RawLog.Frame last = lastFrame();
        overwrite(last.offset(), spanToEnd(last));
        // Without the chain: alpha-1 Found at generation 1 (the previous, superseded version).
        assertRefused();
    }

    @Test
    void aRemovalRetargetedToAnotherIdIsRefusedNotAnUndelete() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.remove("alpha-1", 1); // last frame: DROP alpha-1 (21 bytes)
        }
        RawLog.Frame drop = lastFrame();
        byte[] all = Files.readAllBytes(RawLog.file(dir));
        byte[] forged = LogRegistry.frame(LogRegistry.DROP, "zzzzz-1", null); // same length, an ID never used
        System.arraycopy(forged, 0, all, (int) drop.offset(), forged.length);
        Files.write(RawLog.file(dir), all);
        // Without the chain: alpha-1 Found again (generation 1, RUNNING), a deleted instance back.
        assertRefused();
    }

    @Test
    void framesReorderedFromTheFilesOwnHistoryAreRefused() throws Exception {
        // Rollback of one instance to any consecutive pair still in the file, others untouched.
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.record("alpha-1", 2));
            r.replace(2, Samples.record("alpha-1", 3));
            r.replace(3, Samples.record("alpha-1", 4)); // generations 1..4; 3 and 4 are current
        }
        List<RawLog.Frame> frames = RawLog.frames(dir);
        RawLog.Frame third = frames.get(2);
        overwrite(third.offset(), spanToEnd(third));
        // Without the chain: alpha-1 Found at generation 2 (generations 1 and 2 are consecutive).
        assertRefused();
    }

    @Test
    void anOlderAuthenticValueInPlaceOfTheCurrentOneIsRefused() throws Exception {
        // Generations 1, 2, 3 of equal length: slot 1 holds 3 (current), slot 0 holds 2, generation 1's frame is dead.
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.record("alpha-1", 1));
            r.replace(2, Samples.record("alpha-1", 1));
        }
        byte[] first = RawLog.frames(dir).get(0).value();
        RawLog.replaceInPlace(dir, "alpha-1#1", first);
        // Without the record's own MAC in the chain: alpha-1 Found at generation 2, rolled back by one.
        assertRefused();
    }
}
