package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestartTest {
    @TempDir
    Path dir;

    @Test
    void recordsAndGenerationsSurviveARestart() throws Exception {
        Map<String, InstanceRecord> expected = new HashMap<>();
        try (Registry r = Registry.open(dir, 50)) {
            for (int i = 0; i < 30; i++) {
                InstanceRecord rec = Samples.record("inst-" + i, i);
                r.insert(rec);
                expected.put(rec.instanceId(), rec);
            }
            for (int i = 0; i < 30; i += 3) {
                InstanceRecord next = Samples.replacing("inst-" + i, i + 1);
                assertInstanceOf(CasResult.Stored.class, r.replace(1, next));
                expected.put(next.instanceId(), next);
            }
            r.remove("inst-29", 1);
            expected.remove("inst-29");
            // Both slots filled (inserted, then replaced): the removal drops both, none comes back.
            assertInstanceOf(CasResult.Removed.class, r.remove("inst-0", 2));
            expected.remove("inst-0");
            // Replaced twice, removed, inserted again: a new instance at generation 1.
            assertInstanceOf(CasResult.Stored.class, r.replace(2, Samples.record("inst-3", 300)));
            assertInstanceOf(CasResult.Removed.class, r.remove("inst-3", 3));
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("inst-3", 333)));
            expected.put("inst-3", Samples.record("inst-3", 333));
        }
        for (int restart = 0; restart < 2; restart++) {
            try (Registry r = Registry.open(dir, 50)) {
                assertEquals(expected.size(), r.all().size());
                assertInstanceOf(Lookup.Absent.class, r.get("inst-0"), "a removed instance stays removed");
                // Only each instance's current version stays decoded on the heap, never the one it superseded.
                assertEquals(expected.size(), ((LogRegistry) r).decodedRecords());
                for (InstanceRecord rec : expected.values()) {
                    Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get(rec.instanceId()));
                    assertEquals(rec, f.record());
                    assertEquals(rec.state() == InstanceState.REPLACING ? 2 : 1, f.generation());
                }
            }
        }
    }

    @Test
    void aRaisedLimitAppliesAfterARestartAndALoweredOneStopsInserts() throws Exception {
        try (Registry r = Registry.open(dir, 2)) {
            r.insert(Samples.record("inst-1", 1));
            r.insert(Samples.record("inst-2", 2));
            assertInstanceOf(CasResult.Full.class, r.insert(Samples.record("inst-3", 3)));
        }
        try (Registry r = Registry.open(dir, 40)) {
            for (int i = 3; i <= 40; i++) {
                assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("inst-" + i, i)), "insert " + i);
            }
            assertInstanceOf(CasResult.Full.class, r.insert(Samples.record("inst-41", 41)));
        }
        try (Registry r = Registry.open(dir, 5)) {
            assertEquals(40, r.all().size(), "a lowered limit never drops records");
            assertInstanceOf(CasResult.Full.class, r.insert(Samples.record("inst-41", 41)));
            assertInstanceOf(CasResult.Stored.class, r.replace(1, Samples.record("inst-7", 8)));
        }
    }
}
