package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryBasicsTest {
    @TempDir
    Path dir;

    @Test
    void insertGetReplaceRemove() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            InstanceRecord a = Samples.record("alpha-1", 1);
            CasResult.Stored s = assertInstanceOf(CasResult.Stored.class, r.insert(a));
            assertEquals(1, s.generation());
            Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get("alpha-1"));
            assertEquals(a, f.record());
            assertEquals(1, f.generation());
            InstanceRecord b = Samples.replacing("alpha-1", 2);
            CasResult.Stored s2 = assertInstanceOf(CasResult.Stored.class, r.replace(1, b));
            assertEquals(2, s2.generation());
            assertEquals(1, ((LogRegistry) r).decodedRecords(), "the superseded version is not kept decoded");
            assertEquals(b, assertInstanceOf(Lookup.Found.class, r.get("alpha-1")).record());
            assertInstanceOf(CasResult.Removed.class, r.remove("alpha-1", 2));
            assertInstanceOf(Lookup.Absent.class, r.get("alpha-1"));
        }
    }

    /**
     * A remove, cut short by a crash at any byte (every prefix of its frame past the recorded end, and the whole frame
     * with the head not yet updated), leaves the instance as it was, both slots: never the older copy alone, which the
     * next start would take for the instance's current version.
     */
    @Test
    void aRemoveCutShortAnywhereLeavesTheCurrentVersion() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.replacing("alpha-1", 2)); // generation 2 in slot 0, generation 1 in slot 1
        }
        byte[] before = Files.readAllBytes(dir.resolve(LogRegistry.FILE));
        byte[] drop = LogRegistry.frame(LogRegistry.DROP, "alpha-1", null);
        for (int cut = 1; cut <= drop.length; cut++) {
            Files.write(dir.resolve(LogRegistry.FILE), before);
            RawLog.appendUnsigned(dir, Arrays.copyOf(drop, cut));
            try (Registry r = Registry.open(dir, 10)) {
                Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get("alpha-1"), "cut at " + cut);
                assertEquals(2, f.generation(), "cut at " + cut);
                assertEquals(Samples.replacing("alpha-1", 2), f.record());
            }
            assertArrayEquals(before, Files.readAllBytes(dir.resolve(LogRegistry.FILE)), "cut off again at " + cut);
        }
    }

    /**
     * An interrupt (the server's forced stop interrupts the request threads after its grace period) closes an
     * interruptible file channel for every thread: the force opens the file again, the write is on disk and
     * answered as stored, the interrupt is kept, and later writes work.
     */
    @Test
    void anInterruptedWriterDoesNotCloseTheFileForEveryWrite() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            Thread.currentThread().interrupt();
            CasResult written;
            try {
                written = r.insert(Samples.record("alpha-1", 1));
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            }
            assertInstanceOf(CasResult.Stored.class, written);
            assertInstanceOf(CasResult.Stored.class, r.replace(1, Samples.replacing("alpha-1", 2)));
            assertInstanceOf(CasResult.Removed.class, r.remove("alpha-1", 2));
        }
    }

    @Test
    void insertOverAnExistingRecordIsAConflictAndChangesNothing() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            InstanceRecord a = Samples.record("alpha-1", 1);
            r.insert(a);
            CasResult.Conflict c = assertInstanceOf(CasResult.Conflict.class, r.insert(Samples.record("alpha-1", 9)));
            assertEquals(1, c.currentGeneration());
            assertEquals(a, ((Lookup.Found) r.get("alpha-1")).record());
        }
    }

    @Test
    void staleGenerationsAreConflictsAndChangeNothing() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            InstanceRecord a = Samples.record("alpha-1", 1);
            r.insert(a);
            r.replace(1, a.withState(InstanceState.STOPPED));
            for (long stale : new long[] {0, 1, 3, -5, Long.MAX_VALUE}) {
                CasResult.Conflict c = assertInstanceOf(CasResult.Conflict.class,
                        r.replace(stale, a.withState(InstanceState.DELETING)), "replace at " + stale);
                assertEquals(2, c.currentGeneration());
                assertInstanceOf(CasResult.Conflict.class, r.remove("alpha-1", stale), "remove at " + stale);
            }
            Lookup.Found f = (Lookup.Found) r.get("alpha-1");
            assertEquals(InstanceState.STOPPED, f.record().state());
            assertEquals(2, f.generation());
        }
    }

    @Test
    void replaceAndRemoveOfAnAbsentRecordAreAbsent() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(CasResult.Absent.class, r.replace(1, Samples.record("ghost-1", 1)));
            assertInstanceOf(CasResult.Absent.class, r.remove("ghost-1", 1));
            assertInstanceOf(CasResult.Absent.class, r.remove("Not An Id", 1));
            assertInstanceOf(Lookup.Absent.class, r.get("Not An Id"));
            assertInstanceOf(Lookup.Absent.class, r.get(LogRegistry.END_KEY), "the head's key is not a record");
            assertTrue(r.all().isEmpty());
        }
    }

    @Test
    void theInstanceLimitIsEnforcedAndFreedByRemoval() throws Exception {
        try (Registry r = Registry.open(dir, 3)) {
            for (int i = 1; i <= 3; i++) {
                assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("inst-" + i, i)));
            }
            CasResult.Full full = assertInstanceOf(CasResult.Full.class, r.insert(Samples.record("inst-4", 4)));
            assertEquals(3, full.limit());
            assertInstanceOf(Lookup.Absent.class, r.get("inst-4"));
            r.remove("inst-2", 1);
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("inst-4", 4)));
            assertEquals(3, r.all().size());
        }
    }

    @Test
    void allIsSortedById() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            for (String id : List.of("charlie", "alpha", "bravo", "a-0", "zulu-9")) {
                r.insert(Samples.record(id, 1));
            }
            assertEquals(List.of("a-0", "alpha", "bravo", "charlie", "zulu-9"),
                    r.all().stream().map(Lookup::instanceId).toList());
            assertTrue(r.all().stream().allMatch(l -> l instanceof Lookup.Found));
        }
    }

    @Test
    void theLargestRecordRoundTripsAcrossARestart() throws Exception {
        // Two plans at the size limit, with multi-byte characters (2, 3 and 4 bytes in UTF-8).
        String unit = "é☃😀";
        String big = "{\"x\":\"" + unit.repeat((InstanceRecord.MAX_PLAN_BYTES - 8) / 9) + "\"}";
        InstanceRecord.Prior prior = new InstanceRecord.Prior(big, "sha256:" + Samples.hex64(3), "demo-http", "1.0.0",
                Optional.empty(), "dogama-big-1-r1", false);
        InstanceRecord rec = new InstanceRecord("big-1", Optional.of(Samples.hex64(1)), "dogama-big-1", "demo-http",
                "1.0.0", "sha256:" + Samples.hex64(2), big, InstanceState.REPLACING, 1, Optional.of(prior),
                Optional.of("x".repeat(InstanceRecord.MAX_STEP_LENGTH)));
        try (Registry r = Registry.open(dir, 4)) {
            assertInstanceOf(CasResult.Stored.class, r.insert(rec));
            for (int i = 1; i <= 3; i++) {
                assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("small-" + i, i)));
            }
            assertInstanceOf(CasResult.Stored.class, r.replace(1, rec.withStep(Optional.empty())));
        }
        try (Registry r = Registry.open(dir, 4)) {
            assertEquals(rec.withStep(Optional.empty()), ((Lookup.Found) r.get("big-1")).record());
        }
    }

    @Test
    void aClosedRegistryFailsAndCloseIsIdempotent() throws Exception {
        Registry r = Registry.open(dir, 10);
        r.insert(Samples.record("alpha-1", 1));
        r.close();
        r.close();
        assertThrows(RegistryException.class, () -> r.get("alpha-1"));
        assertThrows(RegistryException.class, () -> r.insert(Samples.record("alpha-2", 1)));
        assertThrows(RegistryException.class, () -> r.replace(1, Samples.record("alpha-1", 1)));
        assertThrows(RegistryException.class, () -> r.remove("alpha-1", 1));
        assertThrows(RegistryException.class, r::all);
    }

    @Test
    void oneOpenAtATime() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("alpha-1", 1)));
        }
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(Lookup.Found.class, r.get("alpha-1"));
        }
    }

    @Test
    void limitsAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> Registry.open(dir, 0));
        assertThrows(IllegalArgumentException.class, () -> Registry.open(dir, Registry.MAX_INSTANCES + 1));
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir.resolve("missing"), 10));
        assertTrue(e.getMessage().startsWith("registry: "), e.getMessage());
    }
}
