package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Assertions shared by the end-to-end tests. */
final class Checks {
    private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern DIGEST_FIELD = Pattern.compile("\"planDigest\":\"sha256:[0-9a-f]{64}\"");
    private static final Set<String> PROBLEM_KEYS = Set.of("type", "title", "status", "code");

    private Checks() {
    }

    /** A violation of a plan_rejected problem. */
    record V(String field, String rule) {
        @Override
        public String toString() {
            return field + ":" + rule;
        }
    }

    static V v(String field, String rule) {
        return new V(field, rule);
    }

    /**
     * The problem JSON of SPEC 4: media type, exactly type/title/status/code (plus violations for
     * plan_rejected only), type = urn:dogama:problem:code, status = the HTTP status.
     *
     * @return the violations (empty unless plan_rejected)
     */
    static Set<V> assertProblem(Wire.Response r, int status, String code) {
        assertEquals(status, r.status(), () -> "status of " + r);
        assertTrue(r.contentType().startsWith("application/problem+json"), () -> "media type of " + r);
        Map<String, Object> p = r.json();
        assertEquals("urn:dogama:problem:" + code, p.get("type"), () -> "type of " + r);
        assertEquals(code, p.get("code"), () -> "code of " + r);
        assertEquals(status, Json.number(p.get("status")), () -> "status field of " + r);
        assertTrue(p.get("title") instanceof String t && !t.isBlank(), () -> "title of " + r);
        Set<String> keys = new LinkedHashSet<>(p.keySet());
        Set<V> out = new LinkedHashSet<>();
        if ("plan_rejected".equals(code)) {
            assertTrue(keys.remove("violations"), () -> "plan_rejected without violations: " + r);
            List<Object> vs = Json.array(p.get("violations"));
            assertFalse(vs.isEmpty(), () -> "empty violations: " + r);
            for (Object o : vs) {
                Map<String, Object> v = Json.object(o);
                assertEquals(Set.of("field", "rule"), v.keySet(), () -> "violation shape in " + r);
                out.add(new V((String) v.get("field"), (String) v.get("rule")));
            }
        }
        assertEquals(PROBLEM_KEYS, keys, () -> "problem fields of " + r);
        return out;
    }

    /** 422 plan_rejected whose violations are exactly these. */
    static void assertRejected(Wire.Response r, V... expected) {
        Set<V> got = assertProblem(r, 422, "plan_rejected");
        assertEquals(Set.of(expected), got, () -> "violations of " + r);
    }

    /** 422 plan_rejected whose violations include these (others may accompany them). */
    static void assertRejectedWith(Wire.Response r, V... expected) {
        Set<V> got = assertProblem(r, 422, "plan_rejected");
        assertTrue(got.containsAll(Set.of(expected)), () -> "violations of " + r + " lack " + List.of(expected));
    }

    /**
     * Nothing the agent resolved or learned from Docker is in the body: no container ID (64-hex,
     * except the plan digest, or a 12-hex short form of this run's containers), no socket path, no
     * data directory, no real path behind the configured root, no Docker error text, no stack trace.
     */
    static void assertNoLeak(AgentUnderTest a, Wire.Response r, List<String> containerIds) {
        String body = r.body();
        String scrubbed = DIGEST_FIELD.matcher(body).replaceAll("\"planDigest\":\"\"");
        Matcher m = HEX64.matcher(scrubbed);
        assertFalse(m.find(), () -> "a 64-hex string (container ID?) in " + r);
        for (String id : containerIds) {
            assertFalse(body.contains(id.substring(0, 12)), () -> "container ID " + id + " in " + r);
        }
        assertFalse(body.contains(a.engine().socketPath()), () -> "socket path in " + r);
        assertFalse(body.contains(a.dataDir().toString()), () -> "data directory in " + r);
        assertFalse(body.contains(a.realRoot().toString()), () -> "resolved root path in " + r);
        assertFalse(body.contains(a.outside().toString()), () -> "resolved path outside the root in " + r);
        for (String s : List.of("Error response from daemon", "Exception", "\tat ", "docker.sock")) {
            assertFalse(body.contains(s), () -> "'" + s + "' in " + r);
        }
    }

    /**
     * Runs the request and asserts that Docker was left unchanged: this run's containers are the
     * same (ID, name, state, start/finish times, restart count, image, limits) and the engine
     * reported no container event for them meanwhile (so nothing was created and removed again).
     * Also checks the response for leaks.
     */
    static Wire.Response unchanged(AgentUnderTest a, Supplier<Wire.Response> request) {
        Engine.Snapshot before = a.engine().snapshot(a.token());
        Instant since = Instant.now();
        Wire.Response r = request.get();
        Instant until = Instant.now();
        Engine.Snapshot after = a.engine().snapshot(a.token());
        assertEquals(before, after, () -> "Docker changed by a request answered " + r);
        List<String> events = a.engine().eventsOf(a.token(), since, until);
        assertEquals(List.of(), events, () -> "the engine reported container events for a request answered " + r);
        assertNoLeak(a, r, new ArrayList<>(before.containers().keySet()));
        return r;
    }
}
