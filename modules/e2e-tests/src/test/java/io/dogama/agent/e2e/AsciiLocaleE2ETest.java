package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertRejected;
import static io.dogama.agent.e2e.Checks.unchanged;
import static io.dogama.agent.e2e.Checks.v;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent started under the C locale, as a bare systemd unit or {@code env -i} starts it: the JVM then names
 * files in ASCII, and {@code Path.of} throws for any other character. A plan whose bind source (or a check-disk
 * path) holds one was an internal error (500, a stack trace in the log, the plan's other violations unreported);
 * it must be refused as {@code invalid_path}, with nothing created.
 */
class AsciiLocaleE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E(Map.of("LC_ALL", "C", "LANG", "C"));

    @Test
    void aSourceTheLocaleCannotNameIsRefusedNotAnInternalError() {
        Plans.Plan p = e2e.plan(e2e.instanceId("ascii"));
        Plans.Plan q = p.copy();
        String source = e2e.root() + "/" + p.id() + "/caf\u00e9";
        q.mount(0).put("source", source);
        assertRejected(unchanged(e2e, () -> e2e.wire().post("/v1/instances", q.json())),
                v("mounts[0].source", "invalid_path"));
        assertRejected(unchanged(e2e, () -> e2e.wire().post("/v1/check-disk",
                Json.write(Map.of("paths", List.of(e2e.root().toString(), source))))),
                v("paths[1]", "invalid_path"));

        String log = e2e.logText();
        assertFalse(log.contains("InvalidPathException"), log);
        assertTrue(log.contains("file names are read as"), "the start-up warning is missing:\n" + log);
        // The same plan with a source the locale can name is created.
        Wire.Response created = e2e.wire().post("/v1/instances", p.json());
        assertEquals(201, created.status(), created::toString);
    }
}
