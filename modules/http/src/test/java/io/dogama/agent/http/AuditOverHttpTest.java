package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.audit.Verification;
import io.dogama.agent.metrics.Metrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP surface's audit lines and their gate on mutations (SPEC section 14), with a real audit log. */
class AuditOverHttpTest {
    private static final String SECRET_ENV = "top secret env 93c1";
    private static final String PLAN = "{\"instanceId\":\"mc-0001\",\"templateId\":\"demo-http\",\"env\":{\"GREETING\":\""
            + SECRET_ENV + "\"},\"mounts\":[{\"source\":\"/srv/dogama/instances/mc-0001/data\"}]}";

    @TempDir
    Path dir;

    private AuditLog open() throws Exception {
        return AuditLog.open(dir.resolve("audit"), 1 << 20, dir.resolve("audit.key"), Clock.systemUTC());
    }

    private String log() throws Exception {
        StringBuilder sb = new StringBuilder();
        try (var s = Files.list(dir.resolve("audit"))) {
            for (Path f : s.sorted().toList()) {
                sb.append(Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        return sb.toString();
    }

    @Test
    void mutationsAreWrittenBeforeAndAfterAndNothingSecretReachesTheLog() throws Exception {
        Metrics metrics = Metrics.create();
        List<String> headers;
        try (AuditLog audit = open(); ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, metrics))) {
            headers = f.signedHeaders("POST", "/v1/instances", PLAN);
            List<String> withType = new java.util.ArrayList<>(headers);
            withType.add("Content-Type: application/json");
            assertEquals(201, RawHttp.exchange(f.port, RawHttp.request("POST", "/v1/instances", withType, PLAN)).status());
            assertEquals(200, f.send("POST", "/v1/instances/mc-0001/start", "").status());
            // A replay of the create: refused before routing, its signature and body never logged.
            assertEquals(401, RawHttp.exchange(f.port, RawHttp.request("POST", "/v1/instances", withType, PLAN)).status());
        }
        String log = log();
        assertTrue(log.contains("\"kind\":\"begin\",\"route\":\"POST /v1/instances\",\"outcome\":\"admitted\""), log);
        assertTrue(log.contains("\"kind\":\"end\",\"route\":\"POST /v1/instances\",\"instanceId\":\"mc-0001\",\"outcome\":\"ok\""
                + ",\"status\":201"), log);
        assertTrue(log.contains("\"route\":\"POST /v1/instances/{id}/start\",\"instanceId\":\"mc-0001\",\"outcome\":\"ok\""), log);
        assertTrue(log.contains("\"kind\":\"refused\",\"route\":\"POST /v1/instances\",\"outcome\":\"replayed_request\""), log);
        for (String forbidden : List.of(Signing.SECRET_LINE.strip(), SECRET_ENV, "GREETING", "/srv/dogama", "demo-http",
                headers.get(0).substring("Authorization: DoGaMa-HMAC-SHA256 ".length()),
                headers.get(2).substring("X-DoGaMa-Nonce: ".length()))) {
            assertFalse(log.contains(forbidden), () -> "'" + forbidden + "' in the audit log:\n" + log);
        }
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir.resolve("audit"), dir.resolve("audit.key")));
    }

    /**
     * SPEC 14: a refused create is a line naming its instance. The HTTP layer never parses a plan, so the end line of
     * a create the operations refused named no instance at all (session 41's review).
     */
    @Test
    void aRefusedCreateIsRecordedAgainstTheInstanceItsPlanNames() throws Exception {
        try (AuditLog audit = open(); ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, Metrics.create()))) {
            assertEquals(201, f.send("POST", "/v1/instances", PLAN).status());
            assertEquals(409, f.send("POST", "/v1/instances", PLAN.replace(SECRET_ENV, "another")).status());
        }
        String log = log();
        assertTrue(log.contains("\"kind\":\"end\",\"route\":\"POST /v1/instances\",\"instanceId\":\"mc-0001\","
                + "\"outcome\":\"instance_exists\",\"status\":409"), log);
    }

    /**
     * Session 38's review: the 50 lines a second of refusals were shared by every unauthenticated one, so a flood of
     * unsigned requests kept a captured request sent again, and its peer, out of the log. The log's clock stands
     * still: every request falls in one second.
     */
    @Test
    void aFloodOfUnsignedRequestsDoesNotHideASignedRequestSentAgain() throws Exception {
        Clock still = Clock.fixed(java.time.Instant.parse("2026-12-02T05:00:00Z"), java.time.ZoneOffset.UTC);
        try (AuditLog audit = AuditLog.open(dir.resolve("audit"), 1 << 20, dir.resolve("audit.key"), still);
                ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, Metrics.create()))) {
            for (int i = 0; i < AuditLog.UNAUTHENTICATED_PER_SECOND + 10; i++) {
                assertEquals(401, RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/health", List.of(), "")).status());
            }
            List<String> headers = f.signedHeaders("GET", "/v1/instances", "");
            assertEquals(200, RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/instances", headers, "")).status());
            RawHttp.Response again = RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/instances", headers, ""));
            assertEquals("replayed_request", again.code());
        }
        String log = log();
        assertTrue(log.contains("\"route\":\"GET /v1/instances\",\"outcome\":\"replayed_request\""), log);
    }

    @Test
    void aMutationWhoseBeginLineCannotBeWrittenIsRefusedBusyAndNotDone() throws Exception {
        Metrics metrics = Metrics.create();
        AuditLog audit = open();
        try (ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, metrics))) {
            audit.close(); // from now on no line can be written: as with a full disk, for the request path
            RawHttp.Response r = f.send("POST", "/v1/instances/mc-0001/start", "");
            assertEquals(503, r.status());
            assertEquals("busy", r.code());
            assertEquals(List.of(), f.ops.calls, "the operation ran unaudited");
            // Reads are not held back by the log.
            assertEquals(200, f.send("GET", "/v1/health", "").status());
            String text = metrics.scrape();
            assertTrue(text.contains("dogama_audit_refused_mutations_total 1\n"), text);
            assertTrue(text.contains("dogama_http_requests_total{route=\"POST /v1/instances/{id}/start\",status=\"503\"} 1\n"),
                    text);
        }
    }

    /**
     * Requests Helidon refuses before the gate runs (a body declared past the limit, a header it cannot
     * parse) are refused requests too: one line each, with the route aimed at and the peer, and counted.
     * Before, only the gate's own refusals were written.
     */
    @Test
    void refusalsHelidonAnswersItselfAreWrittenAndCounted() throws Exception {
        Metrics metrics = Metrics.create();
        try (AuditLog audit = open(); ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, metrics))) {
            RawHttp.Response tooLarge = RawHttp.exchange(f.port, "POST /v1/instances HTTP/1.1\r\nHost: agent\r\n"
                    + "Content-Length: " + (HttpLimits.DEFAULT_MAX_BODY_BYTES + 1) + "\r\n\r\n");
            assertEquals(413, tooLarge.status());
            RawHttp.Response malformed = RawHttp.exchange(f.port, "GET /v1/health HTTP/1.1\r\nHost: agent\r\n"
                    + "No colon here\r\n\r\n");
            assertEquals(400, malformed.status());
            assertEquals(List.of(), f.ops.calls);
            String text = metrics.scrape();
            assertTrue(text.contains("dogama_http_requests_total{route=\"POST /v1/instances\",status=\"413\"} 1\n"),
                    text);
            assertTrue(text.contains("dogama_http_requests_total{route=\"GET /v1/health\",status=\"400\"} 1\n"), text);
        }
        String log = log();
        assertTrue(log.contains("\"kind\":\"refused\",\"route\":\"POST /v1/instances\",\"outcome\":\"body_too_large\""
                + ",\"status\":413"), log);
        assertTrue(log.contains("\"kind\":\"refused\",\"route\":\"GET /v1/health\",\"outcome\":\"malformed_request\""
                + ",\"status\":400"), log);
        assertEquals(2, log.split("\"peer\":\"127.0.0.1:", -1).length - 1, log);
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir.resolve("audit"), dir.resolve("audit.key")));
    }
}
