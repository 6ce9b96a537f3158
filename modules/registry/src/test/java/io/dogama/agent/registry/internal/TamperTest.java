package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A record that does not verify is never returned, never the base of a write, and never silently dropped. */
class TamperTest {
    /** bravo-1 at generation 1 lives in slot 1. */
    private static final String B1 = "bravo-1#1";

    @TempDir
    Path dir;

    private void seed() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 4242));
            r.insert(Samples.record("bravo-1", 2));
            r.insert(Samples.record("charlie-1", 3));
        }
    }

    private void assertTamperedEverywhere(String id) throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Tampered.class, r.get(id));
            List<Lookup> all = r.all();
            assertEquals(3, all.size());
            for (Lookup l : all) {
                if (l.instanceId().equals(id)) {
                    assertInstanceOf(Lookup.Tampered.class, l);
                } else {
                    assertInstanceOf(Lookup.Found.class, l, "an untouched record must still verify");
                }
            }
            assertInstanceOf(CasResult.Tampered.class, r.replace(1, Samples.record(id, 7)));
            assertInstanceOf(CasResult.Tampered.class, r.remove(id, 1));
            assertInstanceOf(CasResult.Tampered.class, r.insert(Samples.record(id, 7)));
        }
    }

    @Test
    void everySingleBitFlipOfAStoredValueIsDetected() throws Exception {
        seed();
        byte[] original = RawLog.get(dir, B1);
        // Every bit of the header and MAC, and a sample through the body.
        for (int i = 0; i < original.length; i += (i < 16 || i >= original.length - 40) ? 1 : 37) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] flipped = original.clone();
                flipped[i] ^= (byte) (1 << bit);
                RawLog.put(dir, B1, flipped);
                try (Registry r = Registry.open(dir, 10)) {
                    assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"), "byte " + i + " bit " + bit);
                }
            }
        }
        RawLog.put(dir, B1, original);
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Found.class, r.get("bravo-1"), "the original verifies again");
        }
    }

    @Test
    void aChangeToTheFileWhileTheRegistryIsOpenIsNeverReadAndIsFoundAtTheNextOpen() throws Exception {
        // The registry reads its file at open only: what it answers is what it wrote and forced.
        seed();
        byte[] original = RawLog.get(dir, B1);
        try (Registry r = Registry.open(dir, 10)) {
            byte[] flipped = original.clone();
            flipped[original.length / 2] ^= 0x01; // in the plan: the record's MAC fails, the frame's CRCs are made anew
            RawLog.replaceInPlace(dir, B1, flipped);
            assertEquals(Samples.record("bravo-1", 2), assertInstanceOf(Lookup.Found.class, r.get("bravo-1")).record());
            r.all().forEach(l -> assertInstanceOf(Lookup.Found.class, l));
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("delta-1", 4)));
        }
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"));
            assertInstanceOf(Lookup.Found.class, r.get("delta-1"), "the write made meanwhile is kept");
        }
    }

    @Test
    void aRememberedListingNeverHidesAWriteOrAForgedKey() throws Exception {
        // all() answers with the very list it made last while nothing was written since (LogRegistry.Listed).
        seed();
        try (Registry r = Registry.open(dir, 10)) {
            List<Lookup> before = r.all();
            assertSame(before, r.all(), "an unchanged registry gives the remembered listing");
            assertInstanceOf(CasResult.Stored.class, r.replace(1, Samples.record("bravo-1", 9)));
            assertEquals(new Lookup.Found(Samples.record("bravo-1", 9), 2), find(r.all(), "bravo-1"));
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("delta-1", 4)));
            assertEquals(4, r.all().size());
            assertInstanceOf(CasResult.Removed.class, r.remove("delta-1", 1));
            assertEquals(3, r.all().size());
            assertInstanceOf(CasResult.Conflict.class, r.replace(1, Samples.record("bravo-1", 10)));
            assertSame(r.all(), r.all(), "a refused write changes nothing");
        }
        RawLog.put(dir, "zulu-1#7", new byte[] {1}); // a key no slot has: forged
        try (Registry r = Registry.open(dir, 10)) {
            assertListed(r.all(), "zulu-1#7", Lookup.Tampered.class);
        }
        RawLog.remove(dir, "zulu-1#7");
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(3, r.all().size());
        }
    }

    private static void assertListed(List<Lookup> all, String id, Class<? extends Lookup> expected) {
        for (Lookup l : all) {
            Class<? extends Lookup> wanted = l.instanceId().equals(id) ? expected : Lookup.Found.class;
            assertTrue(wanted.isInstance(l), l.instanceId() + ": " + l);
        }
        assertInstanceOf(expected, find(all, id));
    }

    private static Lookup find(List<Lookup> all, String id) {
        return all.stream().filter(l -> l.instanceId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " is not listed: " + all));
    }

    @Test
    void aTamperedRecordIsNeverOverwrittenOrRemoved() throws Exception {
        seed();
        byte[] flipped = RawLog.get(dir, B1);
        flipped[flipped.length / 2] ^= 0x10;
        RawLog.put(dir, B1, flipped);
        assertTamperedEverywhere("bravo-1");
        assertArrayEquals(flipped, RawLog.get(dir, B1), "the evidence is left as it was");
    }

    @Test
    void aValidRecordMovedUnderAnotherIdIsDetected() throws Exception {
        seed();
        RawLog.put(dir, B1, RawLog.get(dir, "alpha-1#1"));
        assertTamperedEverywhere("bravo-1");
    }

    @Test
    void truncatedAndForeignValuesAreDetected() throws Exception {
        seed();
        for (byte[] v : List.of(new byte[0], new byte[] {'D', 'R'}, new byte[44],
                Arrays.copyOf(RawLog.get(dir, "alpha-1#1"), 60))) {
            RawLog.put(dir, B1, v);
            try (Registry r = Registry.open(dir, 10)) {
                assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"), "length " + v.length);
            }
        }
    }

    @Test
    void authenticButMalformedContentIsRejectedByTheStrictParser() throws Exception {
        seed();
        RecordMac mac = new RecordMac(Files.readAllBytes(dir.resolve(LogRegistry.KEY_FILE)));
        byte[] good = RecordCodec.encodeRecord(mac, B1, Samples.record("bravo-1", 2), 1);
        // A trailing byte, correctly signed: only the parser's strictness can reject it.
        byte[] trailing = resign(mac, B1, Arrays.copyOf(good, good.length - RecordMac.MAC_BYTES + 1));
        // A correctly signed record whose payload names another instance than its slot.
        byte[] otherId = RecordCodec.encodeRecord(mac, B1, Samples.record("alpha-1", 2), 1);
        byte[] relabelled = resign(mac, B1, Arrays.copyOf(otherId, otherId.length - RecordMac.MAC_BYTES));
        // A correctly signed record with generation 0, which no write produces.
        byte[] gen0 = Arrays.copyOf(good, good.length - RecordMac.MAC_BYTES);
        Arrays.fill(gen0, 4, 12, (byte) 0);
        gen0 = resign(mac, B1, gen0);
        // A correctly signed record whose plan bytes are not UTF-8 (é = C3 A9 turned into C3 28).
        InstanceRecord accented = Samples.record("bravo-1", 2);
        accented = new InstanceRecord(accented.instanceId(), accented.containerId(), accented.containerName(),
                accented.templateId(), accented.templateVersion(), accented.planDigest(), "{\"a\":\"é\"}",
                accented.state(), accented.revision(), accented.prior(), accented.step());
        byte[] badUtf8 = RecordCodec.encodeRecord(mac, B1, accented, 1);
        badUtf8 = Arrays.copyOf(badUtf8, badUtf8.length - RecordMac.MAC_BYTES);
        int e = indexOf(badUtf8, new byte[] {(byte) 0xC3, (byte) 0xA9});
        assertTrue(e > 0, "é not found");
        badUtf8[e + 1] = 0x28;
        badUtf8 = resign(mac, B1, badUtf8);
        for (byte[] v : List.of(trailing, relabelled, gen0, badUtf8)) {
            assertTrue(mac.verify(B1, v), "the test value must carry a valid MAC");
            RawLog.put(dir, B1, v);
            try (Registry r = Registry.open(dir, 10)) {
                assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"));
            }
        }
        // Controls: the original, and a genuine U+FFFD (the replacement character) in a plan.
        InstanceRecord replacementChar = new InstanceRecord(accented.instanceId(), accented.containerId(),
                accented.containerName(), accented.templateId(), accented.templateVersion(), accented.planDigest(),
                "{\"a\":\"\uFFFD\"}", accented.state(), accented.revision(), accented.prior(), accented.step());
        for (InstanceRecord control : List.of(Samples.record("bravo-1", 2), accented, replacementChar)) {
            RawLog.put(dir, B1, RecordCodec.encodeRecord(mac, B1, control, 1));
            try (Registry r = Registry.open(dir, 10)) {
                assertEquals(control, assertInstanceOf(Lookup.Found.class, r.get("bravo-1")).record());
            }
        }
    }

    private static byte[] resign(RecordMac mac, String key, byte[] body) {
        byte[] out = Arrays.copyOf(body, body.length + RecordMac.MAC_BYTES);
        mac.sign(key, out, body.length);
        return out;
    }

    @Test
    void slotsSplicedFromDifferentTimesOrParitiesAreDetected() throws Exception {
        seed();
        RecordMac mac = new RecordMac(Files.readAllBytes(dir.resolve(LogRegistry.KEY_FILE)));
        InstanceRecord b = Samples.record("bravo-1", 2);
        // Generation 2 correctly signed, but in slot 1 (the slot of odd generations).
        RawLog.put(dir, B1, RecordCodec.encodeRecord(mac, B1, b, 2));
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"), "wrong parity");
        }
        // Generations 1 and 4: an old copy of one slot put back beside a newer other slot.
        RawLog.put(dir, B1, RecordCodec.encodeRecord(mac, B1, b, 1));
        RawLog.put(dir, "bravo-1#0", RecordCodec.encodeRecord(mac, "bravo-1#0", b, 4));
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Tampered.class, r.get("bravo-1"), "slots out of step");
        }
        // Control: generations 1 and 2 are a normal state, and 2 is current.
        RawLog.put(dir, "bravo-1#0", RecordCodec.encodeRecord(mac, "bravo-1#0", b.withStep(Optional.of("two")), 2));
        try (Registry r = Registry.open(dir, 10)) {
            Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get("bravo-1"));
            assertEquals(2, f.generation());
            assertEquals(Optional.of("two"), f.record().step());
        }
    }

    @Test
    void aWriteCutShortByACrashLeavesThePreviousVersion() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 4242));
            r.replace(1, Samples.record("alpha-1", 4242).withStep(Optional.of("second")));
        }
        // The replace's frame half on the disk and the head not yet updated: the crash came before the write returned.
        List<RawLog.Frame> frames = RawLog.frames(dir);
        long lastFrame = frames.get(frames.size() - 1).offset();
        byte[] all = Files.readAllBytes(RawLog.file(dir));
        Files.write(RawLog.file(dir), Arrays.copyOf(all, (int) (lastFrame + (all.length - lastFrame) / 2)));
        RawLog.sign(dir, lastFrame);
        try (Registry r = Registry.open(dir, 10)) {
            Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get("alpha-1"));
            assertEquals(1, f.generation(), "the previous, complete version");
            assertEquals(Samples.record("alpha-1", 4242), f.record());
            assertInstanceOf(CasResult.Stored.class, r.replace(1, f.record().withStep(Optional.of("again"))));
        }
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(Optional.of("again"), assertInstanceOf(Lookup.Found.class, r.get("alpha-1")).record().step());
        }
    }

    @Test
    void aByteFlippedInTheFileIsDetected() throws Exception {
        seed();
        flipInFile("hello 4242");
        assertTamperedEverywhere("alpha-1");
    }

    @Test
    void aByteFlippedInTheLastFrameIsDetectedNotTakenForAWriteCutShort() throws Exception {
        // The head records where the last completed write ends: damage to that write is not a crash's.
        seed();
        flipInFile("hello 3\"");
        assertTamperedEverywhere("charlie-1");
    }

    private void flipInFile(String marker) throws Exception {
        Path file = dir.resolve(LogRegistry.FILE);
        byte[] bytes = Files.readAllBytes(file);
        byte[] needle = marker.getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(bytes, needle);
        assertTrue(at >= 0, "marker not found in the registry file");
        assertEquals(-1, indexOf(Arrays.copyOfRange(bytes, at + 1, bytes.length), needle), "marker not unique");
        bytes[at + 2] ^= 0x01;
        Files.write(file, bytes);
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
