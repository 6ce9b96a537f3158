package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.audit.Verification;
import io.dogama.agent.metrics.Metrics;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed requests that are refused but are no mutation (routing, the body rule, a read's own refusal) each
 * leave one {@code refused} line with their problem code and their peer (SPEC section 14): the lines
 * {@code RequestGate.account} writes through {@code Accountant.refused} for an authenticated request. A
 * mutation writes its own begin and end lines and an unsigned refusal goes through another call, so none
 * of these lines exists without that one.
 */
class RefusalAuditOverHttpTest {
    @TempDir
    Path dir;

    /** One refused request: what it was answered and the exact line its peer must have. */
    private record Case(String name, int status, String code, String lineWithoutPeer) {
    }

    private String log() throws IOException {
        StringBuilder sb = new StringBuilder();
        try (var s = Files.list(dir.resolve("audit"))) {
            for (Path f : s.sorted().toList()) {
                sb.append(Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        return sb.toString();
    }

    /**
     * Sends one request on a connection of its own and reads the answer.
     *
     * @return the peer the agent saw: every connection has its own local port, so the peer names the one line
     *         of this request
     */
    private static String send(ServerFixture f, String request, Case c) throws IOException {
        try (Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertEquals(c.status(), r.status(), c.name() + ": " + r.text());
            assertEquals(c.code(), r.code(), c.name());
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    private static String signed(ServerFixture f, String method, String path, String contentType, String body) {
        List<String> headers = new ArrayList<>(f.signedHeaders(method, path, body));
        if (contentType != null) {
            headers.add("Content-Type: " + contentType);
        }
        return RawHttp.request(method, path, headers, body);
    }

    @Test
    void everySignedRefusalThatIsNoMutationIsOneRefusedLineWithItsCodeAndPeer() throws Exception {
        // The fake operations answer a check-disk outside /srv/ with this rule, and an unknown ID unknown_instance.
        Case notFound = new Case("GET /v1/nowhere", 404, "not_found",
                "\"kind\":\"refused\",\"route\":\"-\",\"outcome\":\"not_found\",\"status\":404");
        Case methodNotAllowed = new Case("DELETE /v1/health", 405, "method_not_allowed",
                "\"kind\":\"refused\",\"route\":\"-\",\"outcome\":\"method_not_allowed\",\"status\":405");
        Case mediaType = new Case("check-disk as text/plain", 415, "unsupported_media_type",
                "\"kind\":\"refused\",\"route\":\"POST /v1/check-disk\",\"outcome\":\"unsupported_media_type\""
                        + ",\"status\":415");
        Case rejected = new Case("check-disk of /etc", 422, "plan_rejected",
                "\"kind\":\"refused\",\"route\":\"POST /v1/check-disk\",\"outcome\":\"plan_rejected\",\"status\":422");
        Case unknown = new Case("GET /v1/instances/nobody", 404, "unknown_instance",
                "\"kind\":\"refused\",\"route\":\"GET /v1/instances/{id}\",\"instanceId\":\"nobody\""
                        + ",\"outcome\":\"unknown_instance\",\"status\":404");
        String diskBody = "{\"paths\":[\"/srv/dogama/instances/mc-0001/data\"]}";
        String etcBody = "{\"paths\":[\"/etc\"]}";

        Map<Case, String> peers = new LinkedHashMap<>();
        try (AuditLog audit = AuditLog.open(dir.resolve("audit"), 1 << 20, dir.resolve("audit.key"), Clock.systemUTC());
                ServerFixture f = ServerFixture.start(dir, Accounting.of(audit, Metrics.create()))) {
            peers.put(notFound, send(f, signed(f, "GET", "/v1/nowhere", null, ""), notFound));
            peers.put(methodNotAllowed, send(f, signed(f, "DELETE", "/v1/health", null, ""), methodNotAllowed));
            peers.put(mediaType, send(f, signed(f, "POST", "/v1/check-disk", "text/plain", diskBody), mediaType));
            peers.put(rejected, send(f, signed(f, "POST", "/v1/check-disk", "application/json", etcBody), rejected));
            peers.put(unknown, send(f, signed(f, "GET", "/v1/instances/nobody", null, ""), unknown));
            // Only the two reads reached an operation; routing and the media type refused the others before.
            assertEquals(List.of("checkDisk [/etc]", "inspect nobody"), f.ops.calls);
        }
        // Closing the log wrote what was queued: every line is on disk now.
        String log = log();
        for (Map.Entry<Case, String> e : peers.entrySet()) {
            Case c = e.getKey();
            String peer = "\"peer\":\"" + e.getValue() + "\"";
            List<String> lines = log.lines().filter(l -> l.contains(peer)).toList();
            assertEquals(1, lines.size(), () -> c.name() + ": not one line for " + peer + " in\n" + log);
            String line = lines.getFirst();
            assertTrue(line.contains("," + c.lineWithoutPeer() + "," + peer), () -> c.name() + ": " + line);
        }
        // A plan_rejected line carries the rule names of its violations, after the peer (never the field or path).
        String etcLine = log.lines().filter(l -> l.contains("\"peer\":\"" + peers.get(rejected) + "\"")).findFirst()
                .orElseThrow();
        assertTrue(etcLine.contains("\"peer\":\"" + peers.get(rejected) + "\",\"rules\":[\"outside_allowed_root\"]"),
                etcLine);
        assertFalse(etcLine.contains("/etc"), etcLine);
        assertFalse(etcLine.contains("paths["), etcLine);
        assertEquals(5, log.lines().filter(l -> l.contains("\"kind\":\"refused\"")).count(), log);
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir.resolve("audit"), dir.resolve("audit.key")));
    }
}
