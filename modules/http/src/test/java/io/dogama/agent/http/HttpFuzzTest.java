package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dogama.agent.auth.NonceStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz target of the request gate and the routing, over real HTTP bytes to the real
 * server on 127.0.0.1 with {@link FakeOperations} behind it (docs/fuzzing.md). Without
 * {@code JAZZER_FUZZ=1} it runs once per committed input under {@code HttpFuzzTestInputs/requests/}.
 *
 * <p>The fuzzer either writes the raw request bytes itself, or chooses the parts (method, path,
 * extra header lines, body, framing) and how the request is signed: with the test key (so that
 * inputs reach the routes), not at all, with another key, over other content, with a stale
 * timestamp, or with an Authorization value of its own. Properties checked on every input:
 * <ul>
 * <li>no 5xx and never {@code internal_error};</li>
 * <li>a request that is not correctly signed, and every request the gate or the route table refuses,
 *     reaches no operation (the fake records no call);</li>
 * <li>the same request gives the same answer (a signed one is signed again with a fresh nonce, the
 *     fake's state reset in between, since a replayed nonce is refused by design).</li>
 * </ul>
 */
class HttpFuzzTest {
    /** Codes only the gate and the route table give: a request answered with one reached no operation. */
    private static final Set<String> GATE_CODES = Set.of("malformed_request", "query_not_allowed", "unauthenticated",
            "stale_request", "replayed_request", "not_found", "method_not_allowed", "body_too_large",
            "unsupported_media_type");
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS");
    private static final List<String> PATHS = List.of("/v1/health", "/v1/check-disk", "/v1/check-ports",
            "/v1/instances", "/v1/instances/demo-0001", "/v1/instances/demo-0001/stats",
            "/v1/instances/demo-0001/start", "/v1/instances/demo-0001/stop", "/v1/instances/demo-0001/restart",
            "/v1/metrics", "/v1/instances/%s", "/v1/instances/%s/stop", "%s");
    /** The plan the fake holds before every request, so that instance routes find an instance. */
    private static final byte[] DEMO = "{\"instanceId\":\"demo-0001\",\"templateId\":\"demo-http\"}"
            .getBytes(StandardCharsets.UTF_8);

    @TempDir
    static java.nio.file.Path dir;
    static TestClock clock;
    static ServerFixture server;

    @BeforeAll
    static void start() throws Exception {
        clock = new TestClock(ServerFixture.VECTOR_TIME);
        server = ServerFixture.start(dir, clock, NonceStore.inMemory(100_000, clock), Signing.SECRET_LINE,
                ServerFixture.limits());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** How a structured request is signed. */
    private enum Signature { VALID, NONE, OTHER_KEY, OTHER_CONTENT, STALE, FUZZED }

    /** One answer: status and problem code, or that the server closed without answering. */
    private record Answer(int status, String code, List<String> calls) {
        static Answer closed(List<String> calls) {
            return new Answer(0, "", calls);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void requests(FuzzedDataProvider data) throws IOException {
        if (data.consumeBoolean()) {
            byte[] raw = data.consumeRemainingAsBytes();
            Answer first = exchange(() -> raw);
            checkAnswer(first, false);
            Answer second = exchange(() -> raw);
            checkAnswer(second, false);
            assertSame(first, second);
            return;
        }
        String method = data.consumeBoolean() ? data.pickValue(METHODS) : data.consumeString(12);
        String path = data.pickValue(PATHS);
        if (path.contains("%s")) {
            path = path.replace("%s", data.consumeString(80));
        }
        List<String> extra = new ArrayList<>();
        for (int n = data.consumeInt(0, 3); n > 0; n--) {
            extra.add(data.consumeString(120));
        }
        Signature signature = data.pickValue(Signature.values());
        String fuzzedAuthorization = signature == Signature.FUZZED ? data.consumeString(120) : "";
        boolean chunked = data.consumeBoolean();
        String contentType = data.consumeBoolean() ? "application/json" : data.consumeString(40);
        String body = data.consumeRemainingAsString();
        Request r = new Request(method, path, extra, signature, fuzzedAuthorization, chunked, contentType, body);
        Answer first = exchange(r::bytes);
        checkAnswer(first, signature == Signature.VALID);
        Answer second = exchange(r::bytes);
        checkAnswer(second, signature == Signature.VALID);
        assertSame(first, second);
    }

    /** A request as the fuzzer chose it; {@link #bytes} signs it anew at each call (fresh nonce, current clock). */
    private record Request(String method, String path, List<String> extra, Signature signature,
            String fuzzedAuthorization, boolean chunked, String contentType, String body) {
        byte[] bytes() {
            byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
            String timestamp = clock.instant().toString();
            String nonce = Signing.nonce();
            List<String> headers = new ArrayList<>();
            switch (signature) {
                case VALID -> headers.addAll(ServerFixture.signedHeaders(Signing.SECRET_LINE, method, path, body,
                        timestamp, nonce));
                case NONE -> {
                    // no signature headers at all
                }
                case OTHER_KEY -> headers.addAll(ServerFixture.signedHeaders(Signing.OTHER_LINE, method, path, body,
                        timestamp, nonce));
                case OTHER_CONTENT -> headers.addAll(ServerFixture.signedHeaders(Signing.SECRET_LINE, method, path,
                        body + " ", timestamp, nonce));
                case STALE -> headers.addAll(ServerFixture.signedHeaders(Signing.SECRET_LINE, method, path, body,
                        clock.instant().minusSeconds(31).toString(), nonce));
                case FUZZED -> {
                    headers.add("Authorization: " + fuzzedAuthorization);
                    headers.add("X-DoGaMa-Timestamp: " + timestamp);
                    headers.add("X-DoGaMa-Nonce: " + nonce);
                }
            }
            headers.addAll(extra);
            StringBuilder head = new StringBuilder();
            head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            for (String h : headers) {
                head.append(h).append("\r\n");
            }
            if (!body.isEmpty()) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            head.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + bodyBytes.length + "\r\n");
            head.append("Connection: close\r\n\r\n");
            byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
            byte[] framed = chunked ? chunk(bodyBytes) : bodyBytes;
            byte[] out = new byte[h.length + framed.length];
            System.arraycopy(h, 0, out, 0, h.length);
            System.arraycopy(framed, 0, out, h.length, framed.length);
            return out;
        }

        private static byte[] chunk(byte[] body) {
            StringBuilder b = new StringBuilder();
            if (body.length > 0) {
                b.append(Integer.toHexString(body.length)).append("\r\n");
            }
            byte[] size = b.toString().getBytes(StandardCharsets.US_ASCII);
            byte[] end = (body.length > 0 ? "\r\n0\r\n\r\n" : "0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] out = new byte[size.length + body.length + end.length];
            System.arraycopy(size, 0, out, 0, size.length);
            System.arraycopy(body, 0, out, size.length, body.length);
            System.arraycopy(end, 0, out, size.length + body.length, end.length);
            return out;
        }
    }

    @FunctionalInterface
    private interface RequestBytes {
        byte[] get();
    }

    /**
     * Resets the fake to one registered instance, moves the clock past the nonce retention (so that
     * the nonce memory never fills up), sends the bytes on a new connection, half-closes it (a
     * request cut short ends at once instead of waiting for the server's read timeout) and reads one
     * answer.
     */
    private static Answer exchange(RequestBytes request) throws IOException {
        server.ops.reset();
        server.ops.create(DEMO);
        server.ops.calls.clear();
        clock.advance(NonceStore.RETENTION.plusSeconds(1));
        byte[] bytes = request.get();
        // Jazzer's SSRF detector reports every connection a target opens; this one is the point of the target.
        SilentCloseable allowed = BugDetectors.allowNetworkConnections(
                (host, port) -> (host.equals("127.0.0.1") || host.equals("localhost")) && port == server.port);
        try (Socket s = RawHttp.connect(server.port)) {
            OutputStream out = s.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
                s.shutdownOutput();
            } catch (SocketException e) {
                // The server answered and closed before taking every byte: read what it said.
            }
            InputStream in = s.getInputStream();
            RawHttp.Response r;
            try {
                r = RawHttp.read(in);
            } catch (SocketException e) {
                return Answer.closed(List.copyOf(server.ops.calls));
            } catch (IOException e) {
                if ("connection closed before a response".equals(e.getMessage())) {
                    return Answer.closed(List.copyOf(server.ops.calls));
                }
                throw e;
            }
            String code = "";
            if (r.body().length > 0 && r.body()[0] == '{') {
                Object c = r.json().get("code");
                code = c instanceof String str ? str : "";
            }
            return new Answer(r.status(), code, List.copyOf(server.ops.calls));
        } finally {
            allowed.close();
        }
    }

    private static void checkAnswer(Answer a, boolean signed) {
        assertTrue(a.status() < 500, "a 5xx: " + a);
        assertNotEquals("internal_error", a.code(), "internal_error: " + a);
        if (!signed || GATE_CODES.contains(a.code()) || a.status() == 0) {
            assertEquals(List.of(), a.calls(), "a refused request reached the operations: " + a);
        }
    }

    /** The same request, the same answer; a connection the server dropped may also come back as a reset. */
    private static void assertSame(Answer first, Answer second) {
        if (first.status() != 0 && second.status() != 0) {
            assertEquals(first, second, "the same request gave two answers");
        }
    }
}
