package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static io.dogama.agent.e2e.Checks.assertRejected;
import static io.dogama.agent.e2e.Checks.unchanged;
import static io.dogama.agent.e2e.Checks.v;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Unknown and malformed instance IDs on every instance route: 404, and Docker untouched, while a
 * registered, running instance sits next to them.
 */
class UnknownInstanceE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static Plans.Plan registered;

    @BeforeAll
    static void aRegisteredRunningNeighbour() {
        registered = e2e.plan(e2e.instanceId("neighbour"));
        assertEquals(201, e2e.wire().post("/v1/instances", registered.json()).status());
        assertEquals(200, e2e.wire().post("/v1/instances/" + registered.id() + "/start").status());
    }

    @AfterAll
    static void removeTheNeighbour() {
        assertEquals(204, e2e.wire().delete("/v1/instances/" + registered.id()).status());
    }

    /** Every instance route, for one ID. */
    private static List<Wire.Signed> everyRoute(String id, String planJson) {
        String p = "/v1/instances/" + id;
        Wire c = e2e.wire();
        return List.of(c.sign("GET", p, null), c.sign("GET", p + "/stats", null), c.sign("POST", p + "/start", null),
                c.sign("POST", p + "/stop", "{\"timeoutSeconds\":1}"), c.sign("POST", p + "/restart", null),
                c.sign("DELETE", p, null), c.sign("PUT", p, "{\"plan\":" + planJson + ",\"expectedRevision\":0}"));
    }

    @Test
    void anUnregisteredIdIsUnknownOnEveryRoute() {
        String ghost = e2e.instanceId("ghost");
        Plans.Plan plan = e2e.plan(ghost);
        for (Wire.Signed req : everyRoute(ghost, plan.json())) {
            Wire.Response r = unchanged(e2e, req::send);
            assertProblem(r, 404, "unknown_instance");
        }
    }

    @Test
    void aMalformedIdIsNoRouteAtAll() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("malformed"));
        String longId = "a".repeat(64);
        for (String id : List.of("Bad_ID", "ab", "-abc", longId, "dogama-x.y", "x%41y")) {
            for (Wire.Signed req : everyRoute(id, plan.json())) {
                Wire.Response r = unchanged(e2e, req::send);
                assertProblem(r, 404, "not_found");
            }
        }
    }

    @Test
    void dotSegmentsAndTrailingSlashesNeverReachAnInstance() {
        String id = registered.id();
        for (String path : List.of("/v1/instances/" + id + "/", "/v1/instances/x/../" + id, "/v1/instances/./" + id,
                "/v1/instances//" + id, "/v1/instances/" + id + "/start/", "/v1//instances/" + id + "/stop")) {
            Wire.Signed req = e2e.wire().sign(path.endsWith("stop") || path.contains("start") ? "POST" : "DELETE",
                    path, null);
            // raw bytes: the JDK client must not get a chance to normalise the path
            Wire.Response r = unchanged(e2e, () -> e2e.wire().raw(req.wire()));
            assertProblem(r, 404, "not_found");
        }
        assertEquals("RUNNING", e2e.wire().get("/v1/instances/" + id).json().get("state"));
    }

    @Test
    void aReplaceCannotRetargetAnotherInstanceThroughThePlan() {
        Plans.Plan other = e2e.plan(e2e.instanceId("retarget"));
        String body = "{\"plan\":" + other.json() + ",\"expectedRevision\":0}";
        Wire.Response r = unchanged(e2e, () -> e2e.wire().put("/v1/instances/" + registered.id(), body));
        assertRejected(r, v("plan.instanceId", "instance_mismatch"));
    }
}
