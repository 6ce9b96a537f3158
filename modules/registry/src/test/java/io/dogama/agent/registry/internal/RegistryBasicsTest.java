package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.nio.file.Path;
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
            assertEquals(b, assertInstanceOf(Lookup.Found.class, r.get("alpha-1")).record());
            assertInstanceOf(CasResult.Removed.class, r.remove("alpha-1", 2));
            assertInstanceOf(Lookup.Absent.class, r.get("alpha-1"));
        }
    }
}
