package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static io.dogama.agent.e2e.Checks.unchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Containers the agent did not create and register (SPEC 5: labels alone prove nothing): a plain
 * one publishing a port, a forged one carrying every io.dogama.* label of an unregistered
 * instance, one squatting the deterministic name of an unregistered instance, and one swapped in
 * behind the agent's back under a registered instance's name. The agent never lists, starts,
 * stops, removes, adopts or reports any of them, also across a restart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UnrelatedContainersE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static String plain;
    private static int plainPort;
    private static String forgedId;
    private static Plans.Plan forgedPlan;
    private static String squatId;
    private static final List<String> targets = new ArrayList<>();

    @BeforeAll
    static void unrelatedContainers() {
        Engine d = e2e.engine();
        plainPort = e2e.freeHostPort();
        plain = d.run("run", "-d", "--name", "e2e-" + e2e.token() + "-plain", "-p", "127.0.0.1:" + plainPort + ":8080",
                AgentUnderTest.DEMO_IMAGE).strip();

        forgedId = e2e.instanceId("forged");
        forgedPlan = e2e.plan(forgedId);
        String forged = d.run("run", "-d", "--name", "dogama-" + forgedId, "--network", e2e.network(),
                "--label", "io.dogama.managed=true", "--label", "io.dogama.instance-id=" + forgedId,
                "--label", "io.dogama.template-id=demo-http", "--label", "io.dogama.template-version=1.0.0",
                "--label", "io.dogama.plan-digest=" + forgedPlan.digest(), "--label", "owner=e2e",
                AgentUnderTest.DEMO_IMAGE).strip();

        squatId = e2e.instanceId("squat");
        String squatter = d.run("create", "--name", "dogama-" + squatId, AgentUnderTest.DEMO_IMAGE).strip();

        for (String c : List.of(plain, forged, squatter)) {
            targets.add(c.substring(0, 12));
        }
        targets.addAll(List.of(forgedId, squatId, "dogama-" + forgedId, "dogama-" + squatId, "e2e-" + e2e.token() + "-plain"));
    }

    /** Every instance route for one ID. */
    private static List<Wire.Signed> everyRoute(String id) {
        String p = "/v1/instances/" + id;
        Wire c = e2e.wire();
        Plans.Plan plan = forgedPlan.with("instanceId", id);
        return List.of(c.sign("GET", p, null), c.sign("GET", p + "/stats", null), c.sign("POST", p + "/start", null),
                c.sign("POST", p + "/stop", "{\"timeoutSeconds\":1}"), c.sign("POST", p + "/restart", null),
                c.sign("DELETE", p, null), c.sign("PUT", p, "{\"plan\":" + plan.json() + ",\"expectedRevision\":0}"));
    }

    @Test
    @Order(1)
    void theyAreNeverListedNextToARegisteredInstance() {
        Plans.Plan mine = e2e.plan(e2e.instanceId("mine"));
        assertEquals(201, e2e.wire().post("/v1/instances", mine.json()).status());
        try {
            Wire.Response list = unchanged(e2e, () -> e2e.wire().get("/v1/instances"));
            assertEquals(200, list.status());
            List<Object> instances = Json.array(list.json().get("instances"));
            assertEquals(1, instances.size(), list::toString);
            assertEquals(mine.id(), Json.object(instances.getFirst()).get("instanceId"));
            for (String t : targets) {
                assertFalse(list.body().contains(t), t + " in " + list);
            }
        } finally {
            assertEquals(204, e2e.wire().delete("/v1/instances/" + mine.id()).status());
        }
    }

    @Test
    @Order(2)
    void everyRouteOnTheirNamesAndIdsIsUnknownAndTouchesNothing() {
        for (String t : targets) {
            for (Wire.Signed req : everyRoute(t)) {
                assertProblem(unchanged(e2e, req::send), 404, "unknown_instance");
            }
        }
    }

    @Test
    @Order(3)
    void aCreateUnderAnOccupiedNameIsRefusedAndTheOccupantNeitherRemovedNorAdopted() {
        // the forged container carries exactly the labels and digest this plan would get
        assertProblem(unchanged(e2e, () -> e2e.wire().post("/v1/instances", forgedPlan.json())), 409, "instance_exists");
        Plans.Plan squat = e2e.plan(squatId);
        assertProblem(unchanged(e2e, () -> e2e.wire().post("/v1/instances", squat.json())), 409, "instance_exists");
        // the failed creates left no registration behind
        assertProblem(e2e.wire().get("/v1/instances/" + forgedId), 404, "unknown_instance");
        assertProblem(e2e.wire().get("/v1/instances/" + squatId), 404, "unknown_instance");
        assertEquals(List.of(), Json.array(e2e.wire().get("/v1/instances").json().get("instances")));
    }

    @Test
    @Order(4)
    void aPortPublishedByAnUnrelatedContainerConflictsWithoutSayingWho() {
        Plans.Plan p = e2e.plan(e2e.instanceId("port"));
        p.port(0).put("hostPort", plainPort);
        Wire.Response create = unchanged(e2e, () -> e2e.wire().post("/v1/instances", p.json()));
        assertProblem(create, 409, "port_conflict");
        Map<String, Object> binding = Map.of("hostIp", "127.0.0.1", "hostPort", plainPort, "protocol", "tcp");
        Wire.Response check = unchanged(e2e, () -> e2e.wire().post("/v1/check-ports",
                Json.write(Map.of("bindings", List.of(binding)))));
        assertEquals(200, check.status(), check::toString);
        Map<String, Object> expected = new java.util.HashMap<>(binding);
        expected.put("available", false);
        assertEquals(Map.of("bindings", List.of(expected)), check.json(), "exactly the binding and a boolean");
    }

    @Test
    @Order(5)
    void aContainerSwappedInUnderARegisteredNameIsNeverActedOn() {
        Plans.Plan p = e2e.plan(e2e.instanceId("swapped"));
        String path = "/v1/instances/" + p.id();
        String name = "dogama-" + p.id();
        Wire.Response created = e2e.wire().post("/v1/instances", p.json());
        assertEquals(201, created.status(), created::toString);
        assertEquals(200, e2e.wire().post(path + "/start").status());
        // behind the agent's back: the real container goes, an impostor with every right label comes
        Engine d = e2e.engine();
        d.run("rm", "-f", name);
        String impostor = d.run("run", "-d", "--name", name, "--network", e2e.network(),
                "--label", "io.dogama.managed=true", "--label", "io.dogama.instance-id=" + p.id(),
                "--label", "io.dogama.template-id=demo-http", "--label", "io.dogama.template-version=1.0.0",
                "--label", "io.dogama.plan-digest=" + created.json().get("planDigest"), "--label", "owner=e2e",
                AgentUnderTest.DEMO_IMAGE).strip();
        try {
            for (String op : List.of("/start", "/stop", "/restart")) {
                assertProblem(unchanged(e2e, () -> e2e.wire().post(path + op)), 409, "identity_mismatch");
            }
            assertProblem(unchanged(e2e, () -> e2e.wire().get(path + "/stats")), 409, "identity_mismatch");
            Plans.Plan next = p.copy();
            next.map("env").put("GREETING", "next");
            Wire.Response replace = unchanged(e2e, () -> e2e.wire().put(path,
                    "{\"plan\":" + next.json() + ",\"expectedRevision\":0}"));
            assertProblem(replace, 409, "identity_mismatch");
            Wire.Response inspect = unchanged(e2e, () -> e2e.wire().get(path));
            assertEquals(200, inspect.status(), inspect::toString);
            assertEquals("missing", Json.object(inspect.json().get("container")).get("status"),
                    "the registered container is gone; the impostor is not it");
            // delete ends the registration; the impostor is not the registered container and stays
            Wire.Response delete = unchanged(e2e, () -> e2e.wire().delete(path));
            assertEquals(204, delete.status(), delete::toString);
            Map<String, Object> still = d.inspect(impostor);
            assertNotNull(still, "the impostor was removed");
            assertEquals("running", Json.object(still.get("State")).get("Status"));
        } finally {
            d.run("rm", "-f", impostor);
        }
    }

    @Test
    @Order(6)
    void aRestartReconcilesWithoutAdoptingOrTouchingAnyOfThem() {
        Wire.Response list = unchanged(e2e, () -> {
            e2e.restart();
            return e2e.wire().get("/v1/instances");
        });
        assertEquals(List.of(), Json.array(list.json().get("instances")));
        for (String t : List.of(forgedId, squatId)) {
            assertProblem(e2e.wire().get("/v1/instances/" + t), 404, "unknown_instance");
        }
        assertTrue(e2e.engine().containersOf(e2e.token()).size() >= 3, "the unrelated containers are all still there");
    }
}
