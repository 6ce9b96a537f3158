package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static io.dogama.agent.e2e.Checks.unchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replayed and otherwise unauthentic requests (SPEC 3): refused with 401 before anything is
 * routed, and Docker untouched. A replay resends the identical signed request, over the JDK client
 * and as identical raw bytes, also after the agent restarted.
 */
class ReplayE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    @Test
    void aReplayedCreateDoesNotRecreateADeletedInstance() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("rep-create"));
        Wire.Signed create = e2e.wire().sign("POST", "/v1/instances", plan.json());
        assertEquals(201, create.send().status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
        assertProblem(unchanged(e2e, create::send), 401, "replayed_request");
        assertProblem(unchanged(e2e, () -> e2e.wire().raw(create.wire())), 401, "replayed_request");
        assertProblem(e2e.wire().get("/v1/instances/" + plan.id()), 404, "unknown_instance");
    }

    @Test
    void aReplayedRawDeleteDoesNotDeleteTheRecreatedInstance() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("rep-delete"));
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        Wire.Signed delete = e2e.wire().sign("DELETE", "/v1/instances/" + plan.id(), null);
        assertEquals(204, e2e.wire().raw(delete.wire()).status());
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertProblem(unchanged(e2e, () -> e2e.wire().raw(delete.wire())), 401, "replayed_request");
        assertEquals("CREATED", e2e.wire().get("/v1/instances/" + plan.id()).json().get("state"));
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
    }

    @Test
    void aReplayedStopDoesNotStopTheRestartedInstanceNorAfterAnAgentRestart() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("rep-stop"));
        String path = "/v1/instances/" + plan.id();
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        try {
            assertEquals(200, e2e.wire().post(path + "/start").status());
            Wire.Signed stop = e2e.wire().sign("POST", path + "/stop", "{\"timeoutSeconds\":2}");
            assertEquals("STOPPED", stop.send().json().get("state"));
            assertEquals("RUNNING", e2e.wire().post(path + "/start").json().get("state"));
            assertProblem(unchanged(e2e, stop::send), 401, "replayed_request");

            // the nonce memory survives a restart (SPEC 3.4): the same bytes, still refused
            e2e.restart();
            assertProblem(unchanged(e2e, stop::send), 401, "replayed_request");
            assertEquals("RUNNING", e2e.wire().get(path).json().get("state"));
        } finally {
            assertEquals(204, e2e.wire().delete(path).status());
        }
    }

    @Test
    void aUsedNonceIsRefusedEvenUnderAFreshSignature() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("rep-nonce"));
        String nonce = e2e.wire().nonce();
        Wire.Signed first = e2e.wire().signAt("POST", "/v1/instances", plan.json(), Instant.now(), nonce);
        assertEquals(201, first.send().status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
        Wire.Signed resigned = e2e.wire().signAt("POST", "/v1/instances", plan.json(),
                Instant.now().plusSeconds(2), nonce);
        assertProblem(unchanged(e2e, resigned::send), 401, "replayed_request");
    }

    @Test
    void staleForgedTamperedAndUnsignedRequestsAreRefused() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("forged"));
        String body = plan.json();
        Wire c = e2e.wire();
        // outside the 30 s window, either way
        assertProblem(unchanged(e2e, c.signAt("POST", "/v1/instances", body, Instant.now().minusSeconds(45),
                e2e.wire().nonce())::send), 401, "stale_request");
        assertProblem(unchanged(e2e, c.signAt("POST", "/v1/instances", body, Instant.now().plusSeconds(45),
                e2e.wire().nonce())::send), 401, "stale_request");
        // signed with another secret
        String zero = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);
        try (io.dogama.agent.client.DogamaClient other = io.dogama.agent.client.DogamaClient.builder()
                .uri(java.net.URI.create("http://127.0.0.1:" + c.port())).secret(zero).build()) {
            Wire stranger = new Wire("127.0.0.1", c.port(), other, io.dogama.agent.client.RequestSigner.of(zero));
            assertProblem(unchanged(e2e, () -> stranger.post("/v1/instances", body)), 401, "unauthenticated");
        }
        // the body, the path or the method changed after signing
        Wire.Signed signed = c.sign("POST", "/v1/instances", body);
        String other = plan.with("labels", Map.of("owner", "mallory")).json();
        assertProblem(unchanged(e2e, () -> c.exchange("POST", "/v1/instances", other, signed.headers())), 401, "unauthenticated");
        Wire.Signed stopA = c.sign("POST", "/v1/instances/" + plan.id() + "-a/stop", null);
        assertProblem(unchanged(e2e, () -> c.exchange("POST", "/v1/instances/" + plan.id() + "/stop", null, stopA.headers())),
                401, "unauthenticated");
        Wire.Signed get = c.sign("GET", "/v1/instances/" + plan.id(), null);
        assertProblem(unchanged(e2e, () -> c.exchange("DELETE", "/v1/instances/" + plan.id(), null, get.headers())),
                401, "unauthenticated");
        // no signature at all, on a real route and an unknown one
        assertProblem(unchanged(e2e, () -> c.exchange("POST", "/v1/instances", body, Map.of())), 401, "unauthenticated");
        assertProblem(unchanged(e2e, () -> c.exchange("GET", "/v1/health", null, Map.of())), 401, "unauthenticated");
        assertProblem(unchanged(e2e, () -> c.exchange("GET", "/v1/containers/json", null, Map.of())), 401, "unauthenticated");
        assertEquals(io.dogama.agent.client.RequestSigner.sha256Hex(body.getBytes(StandardCharsets.UTF_8)).length(), 64);
        // the first, untampered use of that signature still works: nothing above consumed its nonce
        assertEquals(201, signed.send().status());
        assertEquals(204, c.delete("/v1/instances/" + plan.id()).status());
    }
}
