package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC section 3 step 1 and the connection limits, through real HTTP. */
class LimitsOverHttpTest {
    private static final int LIMIT = HttpLimits.DEFAULT_MAX_BODY_BYTES;

    @TempDir
    Path dir;

    private static void assertProblem(RawHttp.Response r, int status, String code) throws Exception {
        assertEquals(status, r.status(), r.text());
        assertEquals("application/problem+json", r.header("Content-Type"));
        assertEquals(code, r.code());
        // Helidon's own refusals too (ProblemDirectHandler): the same headers as every answer of the gate.
        assertEquals("no-store", r.header("Cache-Control"));
        assertEquals("nosniff", r.header("X-Content-Type-Options"));
    }

    /** A JSON body of exactly n bytes. */
    private static String jsonOfSize(int n) {
        String head = "{\"instanceId\":\"mc-0001\",\"pad\":\"";
        String tail = "\"}";
        return head + "x".repeat(n - head.length() - tail.length()) + tail;
    }

    private static byte[] chunked(String method, String path, List<String> headers, byte[] body, int chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        headers.forEach(h -> head.append(h).append("\r\n"));
        head.append("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        out.writeBytes(head.toString().getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < body.length; i += chunk) {
            int n = Math.min(chunk, body.length - i);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, i, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    @Test
    void contentLengthOverTheLimitIs413BeforeTheBodyIsSentOrAuthenticated() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            // Headers only: the server must answer without waiting for 64 KiB + 1 bytes that never come.
            s.getOutputStream().write(("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    + "\r\nContent-Length: " + (LIMIT + 1) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 413, "body_too_large");
            assertEquals("close", r.header("Connection"));
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void aRefusedBodyIsNeverParsedAsFurtherRequests() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            // The oversized body begins with a complete, validly signed request: smuggling it must fail.
            String inner = RawHttp.request("GET", "/v1/health", f.signedHeaders("GET", "/v1/health", ""), "");
            StringBuilder body = new StringBuilder(inner);
            while (body.length() <= LIMIT) {
                body.append('x');
            }
            s.getOutputStream().write(("POST /v1/check-disk HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertProblem(RawHttp.read(s.getInputStream()), 413, "body_too_large");
            s.setSoTimeout(5000);
            assertEquals(-1, s.getInputStream().read(), "the connection must end after the 413");
            assertTrue(f.ops.calls.isEmpty(), "the smuggled request reached an operation: " + f.ops.calls);
        }
    }

    @Test
    void hugeContentLengthIs413() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999"
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertProblem(RawHttp.read(s.getInputStream()), 413, "body_too_large");
        }
    }

    @Test
    void bodyOfExactlyTheLimitIsAccepted() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            String body = jsonOfSize(LIMIT);
            assertEquals(LIMIT, body.getBytes(StandardCharsets.UTF_8).length);
            assertEquals(201, f.send("POST", "/v1/instances", body).status());
            assertEquals(LIMIT, f.ops.bodies.getFirst().length);
        }
    }

    @Test
    void chunkedBodyOverTheLimitIs413WhileReading() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            byte[] body = jsonOfSize(LIMIT + 1).getBytes(StandardCharsets.UTF_8);
            List<String> headers = new ArrayList<>(f.signedHeaders("POST", "/v1/instances", new String(body,
                    StandardCharsets.UTF_8)));
            headers.add("Content-Type: application/json");
            RawHttp.Response r = RawHttp.exchange(f.port, chunked("POST", "/v1/instances", headers, body, 4096));
            assertProblem(r, 413, "body_too_large");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void chunkedBodyOverTheLimitIs413WithoutWaitingForTheRest() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            // Only the size of a chunk past the limit, and never its bytes: the size line alone is refused.
            // (Sending the bytes too raced the answer: the agent closes without reading them, and the client's
            // write could then meet the reset before the answer was read.)
            out.write((Integer.toHexString(LIMIT + 1) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertProblem(RawHttp.read(s.getInputStream()), 413, "body_too_large");
        }
    }

    @Test
    void chunkedBodyWithinTheLimitIsSignedOverItsBytes() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            String body = jsonOfSize(20_000);
            List<String> headers = new ArrayList<>(f.signedHeaders("POST", "/v1/instances", body));
            headers.add("Content-Type: application/json");
            RawHttp.Response r = RawHttp.exchange(f.port,
                    chunked("POST", "/v1/instances", headers, body.getBytes(StandardCharsets.UTF_8), 1000));
            assertEquals(201, r.status(), r.text());
            assertEquals(body, new String(f.ops.bodies.getFirst(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void queryIs400BeforeAuthentication() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            for (String target : List.of("/v1/health?", "/v1/health?x=1", "/v1/instances?all=true", "/nope?x")) {
                assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", target, List.of(), "")), 400,
                        "query_not_allowed");
            }
            // Signed over the path alone or over the whole target: the query is refused either way.
            List<String> signedPath = f.signedHeaders("GET", "/v1/health", "");
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/health?x=1", signedPath, "")), 400,
                    "query_not_allowed");
            List<String> signedTarget = f.signedHeaders("GET", "/v1/health?x=1", "");
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/health?x=1", signedTarget, "")), 400,
                    "query_not_allowed");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void bodyLimitComesBeforeTheQueryCheck() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(("POST /v1/instances?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                    + (LIMIT + 1) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertProblem(RawHttp.read(s.getInputStream()), 413, "body_too_large");
        }
    }

    @Test
    void fragmentIsMalformed() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/health#x", f.signedHeaders("GET",
                    "/v1/health#x", ""), "")), 400, "malformed_request");
        }
    }

    @Test
    void ambiguousFramingIs400() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            assertProblem(RawHttp.exchange(f.port, "POST /v1/instances HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                    + "\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, "POST /v1/instances HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, "
                    + "chunked\r\n\r\n0\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, "POST /v1/instances HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                    + "Content-Length: 2\r\n\r\n{}"), 400, "malformed_request");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    /**
     * Helidon trims the Transfer-Encoding's values and drops empty ones, so these are chunked to it; to a gate that
     * took only a lone "chunked" as chunked they were no body at all, and the signature would be checked over an
     * empty body while Helidon framed a chunked one. (The other framing refusals of the gate, Helidon makes first.)
     */
    @Test
    void aTransferEncodingHelidonTakesAsChunkedButSpelledOtherwiseIs400() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            for (String te : List.of("Transfer-Encoding: chunked,\r\n",
                    "Transfer-Encoding: chunked\r\nTransfer-Encoding:\r\n")) {
                assertProblem(RawHttp.exchange(f.port, "POST /v1/instances HTTP/1.1\r\nHost: x\r\n" + te
                        + "\r\n2\r\n{}\r\n0\r\n\r\n"), 400, "malformed_request");
            }
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void requestsHeliodonRefusesBeforeRoutingAreProblemJsonToo() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            assertProblem(RawHttp.exchange(f.port, "GARBAGE\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, "GET /v1/health HTTP/1.0\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, "GET /v1/%zz HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, "GET /" + "a".repeat(HttpLimits.DEFAULT_MAX_REQUEST_LINE_BYTES)
                    + " HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "malformed_request");
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", "/v1/health",
                    List.of("X-Filler: " + "x".repeat(HttpLimits.DEFAULT_MAX_HEADER_BYTES)), "")), 400,
                    "malformed_request");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    private static HttpLimits shortTimeouts() {
        return ServerFixture.limits().withRequestTimeout(Duration.ofMillis(800));
    }

    @Test
    void stalledClientDoesNotBlockOthersAndIsDisconnected() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                shortTimeouts().withMaxConnections(4));
                Socket inLine = RawHttp.connect(f.port);
                Socket inHeaders = RawHttp.connect(f.port);
                Socket inBody = RawHttp.connect(f.port)) {
            inLine.getOutputStream().write("GET /v1/hea".getBytes(StandardCharsets.US_ASCII));
            inHeaders.getOutputStream().write("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Do"
                    .getBytes(StandardCharsets.US_ASCII));
            String body = "{\"timeoutSeconds\":10}";
            StringBuilder partial = new StringBuilder("POST /v1/instances/mc-0001/stop HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            f.signedHeaders("POST", "/v1/instances/mc-0001/stop", body).forEach(h -> partial.append(h).append("\r\n"));
            partial.append("Content-Type: application/json\r\nContent-Length: ").append(body.length())
                    .append("\r\n\r\n{\"time");
            inBody.getOutputStream().write(partial.toString().getBytes(StandardCharsets.US_ASCII));

            long start = System.nanoTime();
            assertEquals(200, f.send("GET", "/v1/health", "").status());
            long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertTrue(millis < 2000, "a signed request took " + millis + " ms next to stalled clients");

            for (Socket stalled : List.of(inLine, inHeaders, inBody)) {
                long closedAfter = RawHttp.millisUntilClosed(stalled);
                assertTrue(closedAfter < RawHttp.SOCKET_TIMEOUT_MILLIS - 1000,
                        "stalled client still connected after " + closedAfter + " ms");
            }
            assertEquals(List.of("health"), f.ops.calls);
        }
    }

    @Test
    void aClientsConnectionCloseEndsTheConnectionAfterTheAnswer() throws Exception {
        assertClientEnds("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive, Close\r\n");
    }

    /**
     * Sends {@code head} (signed) with a second valid request pipelined right behind it, on a server
     * whose request timeout (120 s) is far beyond the socket's read bound (10 s): end of stream after
     * the answer can only be the agent honouring the client, not its idle sweep.
     */
    private void assertClientEnds(String head) throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                ServerFixture.limits().withRequestTimeout(Duration.ofSeconds(120))); Socket s = RawHttp.connect(f.port)) {
            StringBuilder first = new StringBuilder(head);
            f.signedHeaders("GET", "/v1/health", "").forEach(h -> first.append(h).append("\r\n"));
            StringBuilder second = new StringBuilder("GET /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            f.signedHeaders("GET", "/v1/instances", "").forEach(h -> second.append(h).append("\r\n"));
            s.getOutputStream().write((first + "\r\n" + second + "\r\n").getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertEquals(200, r.status(), r.text());
            assertEquals("close", r.header("connection"), "the answer does not say the connection ends");
            assertEquals(-1, s.getInputStream().read(), "the connection stayed open after the client ended it");
            assertEquals(List.of("health"), f.ops.calls, "a request sent after the client ended the connection was served");
        }
    }

    @Test
    void idleKeepAliveConnectionIsClosedButASlowOperationIsNotCutOff() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                shortTimeouts()); Socket s = RawHttp.connect(f.port)) {
            f.ops.healthGate = new java.util.concurrent.CountDownLatch(1);
            StringBuilder request = new StringBuilder("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            f.signedHeaders("GET", "/v1/health", "").forEach(h -> request.append(h).append("\r\n"));
            s.getOutputStream().write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            // The operation outlasts the request timeout (800 ms) several times over.
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (f.ops.calls.isEmpty() && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
            }
            assertEquals(List.of("health"), f.ops.calls, "the request did not reach the operation");
            // The watchdog's own work is the condition: three idle connections, one after the other, each
            // closed by the watchdog once it outlived the request timeout. Three timeouts and sweeps have then
            // passed while the operation was running.
            for (int i = 0; i < 3; i++) {
                try (Socket probe = RawHttp.connect(f.port)) {
                    assertTrue(RawHttp.millisUntilClosed(probe) < RawHttp.SOCKET_TIMEOUT_MILLIS,
                            "the watchdog did not close an idle connection");
                }
            }
            f.ops.healthGate.countDown();
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertEquals(200, r.status(), "a slow operation was cut off by the request timeout");
            // Kept alive, then idle: closed after about the request timeout.
            long closedAfter = RawHttp.millisUntilClosed(s);
            assertTrue(closedAfter < 5000, "idle connection kept for " + closedAfter + " ms");
        }
    }

    @Test
    void requestsBeyondTheConcurrencyLimitAre503Busy() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                ServerFixture.limits().withMaxConcurrentRequests(1)); Socket s = RawHttp.connect(f.port)) {
            f.ops.healthGate = new java.util.concurrent.CountDownLatch(1);
            s.getOutputStream().write(RawHttp.request("GET", "/v1/health", f.signedHeaders("GET", "/v1/health", ""), "")
                    .getBytes(StandardCharsets.US_ASCII));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (f.ops.calls.isEmpty() && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
            }
            assertEquals(List.of("health"), f.ops.calls);
            RawHttp.Response second = f.send("GET", "/v1/health", "");
            f.ops.healthGate.countDown();
            assertProblem(second, 503, "busy");
            assertEquals(200, RawHttp.read(s.getInputStream()).status());
        }
    }

    /**
     * Stops that wait out their timeout (up to 300 s, and more while they wait for an engine connection) take at
     * most three in four of the requests in progress: the rest stay for reads, health among them. Before, as many
     * such stops as there were permits answered every other request busy until they ended (a helper's review).
     */
    @Test
    void mutationsLeaveAShareOfTheRequestsToReads() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        HttpLimits limits = ServerFixture.limits().withMaxConcurrentRequests(4);
        assertEquals(3, limits.maxConcurrentMutations());
        List<Socket> stops = new ArrayList<>();
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                limits)) {
            f.ops.stopGate = new java.util.concurrent.CountDownLatch(1);
            try {
                String path = "/v1/instances/held/stop";
                String body = "{\"timeoutSeconds\":300}";
                for (int i = 0; i < 3; i++) {
                    Socket s = RawHttp.connect(f.port);
                    stops.add(s);
                    List<String> headers = new ArrayList<>(f.signedHeaders("POST", path, body));
                    headers.add("Content-Type: application/json");
                    s.getOutputStream().write(RawHttp.request("POST", path, headers, body)
                            .getBytes(StandardCharsets.US_ASCII));
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (f.ops.stopsWaiting.get() < 3 && System.nanoTime() < deadline) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
                }
                assertEquals(3, f.ops.stopsWaiting.get(), "the three stops never reached the operation");
                assertProblem(f.send("POST", "/v1/instances/other/stop", "{\"timeoutSeconds\":0}"), 503, "busy");
                assertEquals(200, f.send("GET", "/v1/health", "").status());
                assertEquals(200, f.send("GET", "/v1/instances", "").status());
            } finally {
                f.ops.stopGate.countDown();
            }
            for (Socket s : stops) {
                assertNotEquals(503, RawHttp.read(s.getInputStream()).status());
            }
        } finally {
            for (Socket s : stops) {
                s.close();
            }
        }
    }
}
