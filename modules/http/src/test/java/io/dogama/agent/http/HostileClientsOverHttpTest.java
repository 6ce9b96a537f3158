package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The attacks of issue 18 items 1 and 3 (SPEC section 3, framing and connections), each against the real
 * server: strict chunked framing, bounded chunk sizes, pre-authentication answers that close, and
 * unauthenticated clients that try to hold every connection slot or request permit.
 */
class HostileClientsOverHttpTest {
    private static final String STOP = "/v1/instances/mc-0001/stop";
    private static final String STOP_BODY = "{\"timeoutSeconds\":5}";

    @TempDir
    Path dir;

    private static void assertProblem(RawHttp.Response r, int status, String code) throws Exception {
        assertEquals(status, r.status(), r.text());
        assertEquals("application/problem+json", r.header("Content-Type"));
        assertEquals(code, r.code());
    }

    /** Signed headers for {@link #STOP} with {@link #STOP_BODY}, sent chunked with the framing given. */
    private static byte[] signedChunked(ServerFixture f, byte[] framedBody) {
        return signedChunked(f, STOP_BODY, framedBody);
    }

    /** Signed headers for {@link #STOP} with {@code signedBody}, sent chunked with the framing given. */
    private static byte[] signedChunked(ServerFixture f, String signedBody, byte[] framedBody) {
        StringBuilder head = new StringBuilder("POST " + STOP + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        f.signedHeaders("POST", STOP, signedBody).forEach(h -> head.append(h).append("\r\n"));
        head.append("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(framedBody);
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void wellFramedChunkedBodyIsServed() throws Exception {
        // The control case for every framing attack below: the same request, framed correctly, reaches the
        // operation (which knows no instance, hence its 404).
        try (ServerFixture f = ServerFixture.start(dir)) {
            String a = STOP_BODY.substring(0, 7);
            String b = STOP_BODY.substring(7);
            byte[] framed = ascii(Integer.toHexString(a.length()) + "\r\n" + a + "\r\n00" + Integer.toHexString(
                    b.length()).toUpperCase() + "\r\n" + b + "\r\n0\r\n\r\n");
            assertProblem(RawHttp.exchange(f.port, signedChunked(f, framed)), 404, "unknown_instance");
            assertEquals(List.of("stop mc-0001 5"), f.ops.calls);
        }
    }

    /**
     * Helidon reads a chunk's data with {@code readBuffer(size)}, which calls {@code skip(size)}: a chunk of
     * two bytes looked to the strict reader like the CR LF after a chunk's data (found by a helper's review).
     */
    @Test
    void chunksOfTwoBytesAreServed() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            StringBuilder framed = new StringBuilder();
            for (int i = 0; i < STOP_BODY.length(); i += 2) {
                framed.append("2\r\n").append(STOP_BODY, i, i + 2).append("\r\n");
            }
            framed.append("0\r\n\r\n");
            assertProblem(RawHttp.exchange(f.port, signedChunked(f, ascii(framed.toString()))), 404,
                    "unknown_instance");
            assertEquals(List.of("stop mc-0001 5"), f.ops.calls);
        }
    }

    /** The same confusion the other way: a two-byte chunk of CR LF let the real CR LF check pass over XX. */
    @Test
    void aChunkOfTwoBytesCannotStandInForTheCrlfAfterIt() throws Exception {
        // Signed over the body the lenient reading gives, so without the check the operation runs.
        String lenient = "\r\n" + STOP_BODY;
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(signedChunked(f, lenient, ascii("2\r\n\r\nXX14\r\n" + STOP_BODY
                    + "\r\n0\r\n\r\n")));
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 400, "malformed_request");
            assertEquals("close", r.header("Connection"));
            assertEquals(List.of(), f.ops.calls, "a request with broken framing reached an operation");
        }
    }

    /** Each is the valid body {@code {"timeoutSeconds":5}} (20 bytes, 0x14) with one framing error. */
    @ParameterizedTest
    @ValueSource(strings = {
            "+14\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // a sign
            "-0\r\n\r\n", // a sign on the last chunk
            "0x14\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // a prefix
            " 14\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // whitespace
            "14 \r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n",
            "14;ext=1\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // an extension
            "\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // no size
            "14\r\n{\"timeoutSeconds\":5}XX0\r\n\r\n", // no CRLF after the data
            "14\r\n{\"timeoutSeconds\":5}\r\n0\r\nX-Trailer: 1\r\n\r\n", // a trailer
            "\u00d9\u00a3\r\n{\"timeoutSeconds\":5}\r\n0\r\n\r\n", // a non-ASCII digit, as UTF-8 bytes
    })
    void chunkedFramingIsStrict(String framing) throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(signedChunked(f, ascii(framing)));
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 400, "malformed_request");
            assertEquals("close", r.header("Connection"));
            assertTrue(RawHttp.millisUntilClosed(s) < RawHttp.SOCKET_TIMEOUT_MILLIS);
            assertEquals(List.of(), f.ops.calls, "a request with broken framing reached an operation");
        }
    }

    @Test
    void chunkSizeLineIsBounded() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            // Leading zeros are hex digits: only the length bound can refuse this line.
            String zeros = "0".repeat(HttpLimits.MAX_CHUNK_LINE_BYTES);
            s.getOutputStream().write(signedChunked(f, ascii(zeros + "14\r\n" + STOP_BODY + "\r\n0\r\n\r\n")));
            assertProblem(RawHttp.read(s.getInputStream()), 400, "malformed_request");
            assertEquals(List.of(), f.ops.calls);
        }
    }

    @Test
    void endlessChunkSizeLineIsRefusedWithoutWaitingForItsEnd() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            OutputStream out = s.getOutputStream();
            out.write(signedChunked(f, ascii("0".repeat(HttpLimits.MAX_CHUNK_LINE_BYTES + 1))));
            out.flush(); // and the line never ends
            assertProblem(RawHttp.read(s.getInputStream()), 400, "malformed_request");
        }
    }

    /**
     * The reproduced attack: a declared chunk of 128 MiB. Before the fix Helidon buffered the whole chunk
     * before returning any of it; two such clients ended the listener with an OutOfMemoryError. Now the
     * answer comes from the size line alone, while the client is still sending.
     */
    @Test
    void hugeChunkSizeIs413BeforeTheChunkIsBuffered() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            OutputStream out = s.getOutputStream();
            out.write(ascii("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "8000000\r\n"));
            out.write(new byte[4096]);
            out.flush(); // and none of the other 134 million bytes
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 413, "body_too_large");
            assertEquals("close", r.header("Connection"));
        }
    }

    @Test
    void chunkSizesAddingUpPastTheLimitAre413AtTheSizeLine() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            OutputStream out = s.getOutputStream();
            int limit = HttpLimits.DEFAULT_MAX_BODY_BYTES;
            out.write(ascii("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(limit) + "\r\n"));
            out.write(new byte[limit]);
            out.write(ascii("\r\n1\r\n"));
            out.flush(); // the one byte past the limit is declared, never sent
            assertProblem(RawHttp.read(s.getInputStream()), 413, "body_too_large");
        }
    }

    @Test
    void aControlCharacterInTheMethodIsMalformedNotInternal() throws Exception {
        // Found by HttpFuzzTest (input control-char-in-method): Helidon's Method.create throws on it and its
        // connection reported an internal error, so these bytes got a 500 internal_error.
        try (ServerFixture f = ServerFixture.start(dir)) {
            RawHttp.Response r = RawHttp.exchange(f.port, ascii("GE\u0001T /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"));
            assertProblem(r, 400, "malformed_request");
            assertEquals(List.of(), f.ops.calls);
        }
    }

    @Test
    void everyAnswerBeforeAuthenticationClosesTheConnection() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> unsigned = List.of(
                    "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", // 401
                    "GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", // 401: unsigned, so not told it is a 404
                    "GET /v1/health?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", // 400 query
                    "POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999\r\n\r\n"); // 413
            for (String request : unsigned) {
                try (Socket s = RawHttp.connect(f.port)) {
                    s.getOutputStream().write(ascii(request));
                    RawHttp.Response r = RawHttp.read(s.getInputStream());
                    assertEquals("close", r.header("Connection"), request);
                    assertTrue(RawHttp.millisUntilClosed(s) < RawHttp.SOCKET_TIMEOUT_MILLIS, request);
                }
            }
            // A signed request that is refused after authentication keeps its connection.
            try (Socket s = RawHttp.connect(f.port)) {
                StringBuilder request = new StringBuilder("GET /v1/nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n");
                f.signedHeaders("GET", "/v1/nowhere", "").forEach(h -> request.append(h).append("\r\n"));
                s.getOutputStream().write(ascii(request.append("\r\n").toString()));
                RawHttp.Response r = RawHttp.read(s.getInputStream());
                assertProblem(r, 404, "not_found");
                assertFalse("close".equals(r.header("Connection")), "a signed 404 closed the connection");
                s.getOutputStream().write(ascii(RawHttp.request("GET", "/v1/health",
                        f.signedHeaders("GET", "/v1/health", ""), "")));
                assertEquals(200, RawHttp.read(s.getInputStream()).status());
            }
        }
    }

    @Test
    void whenEverySlotIsTakenTheOldestUnauthenticatedConnectionMakesRoom() throws Exception {
        try (ServerFixture f = slotted(3, 100, Duration.ofSeconds(30));
                Socket trusted = RawHttp.connect(f.port)) {
            // A connection that authenticated keeps its slot.
            trusted.getOutputStream().write(ascii(keepAlive(f, "/v1/health")));
            assertEquals(200, RawHttp.read(trusted.getInputStream()).status());
            try (Socket oldest = RawHttp.connect(f.port); Socket newer = RawHttp.connect(f.port)) {
                oldest.getOutputStream().write(ascii("GET /v1/hea"));
                newer.getOutputStream().write(ascii("GET /v1/hea"));
                // Every slot is taken now (the newer one took the last): the oldest unauthenticated one was closed.
                assertTrue(RawHttp.millisUntilClosed(oldest) < RawHttp.SOCKET_TIMEOUT_MILLIS);
                // A new client is served.
                assertEquals(200, f.send("GET", "/v1/health", "").status());
                // The authenticated connection was never evicted.
                trusted.getOutputStream().write(ascii(keepAlive(f, "/v1/instances")));
                assertEquals(200, RawHttp.read(trusted.getInputStream()).status());
            }
        }
    }

    /**
     * Session 38's review: one client address holds every slot but one and reopens each connection it loses. With the
     * oldest connection of all evicted at each accept, another client's connection became the oldest within as many
     * accepts as the flood held slots, and its signed request, still on its way in, was reset. The address holding
     * the most connections now gives up its own oldest.
     */
    @Test
    void aFloodFromOneAddressEvictsOnlyItsOwnConnections() throws Exception {
        int slots = 4;
        try (ServerFixture f = slotted(slots, 100, Duration.ofSeconds(30))) {
            List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < slots - 1; i++) {
                    flood.add(floodFrom("127.0.0.2", f.port));
                }
                String request = keepAlive(f, "/v1/health");
                try (Socket client = connectFrom("127.0.0.1", f.port)) {
                    // The client's signed request is on its way in: all but its last line break.
                    client.getOutputStream().write(ascii(request.substring(0, request.length() - 2)));
                    client.getOutputStream().flush();
                    // It took the last slot: the flood's oldest made room. Then the flood reopens, again and again.
                    for (int round = 0; round < 2 * slots; round++) {
                        Socket oldest = flood.remove(0);
                        assertTrue(RawHttp.millisUntilClosed(oldest) < RawHttp.SOCKET_TIMEOUT_MILLIS,
                                "round " + round + ": the flood's oldest connection was not the one evicted");
                        oldest.close();
                        flood.add(floodFrom("127.0.0.2", f.port));
                    }
                    client.getOutputStream().write(ascii("\r\n"));
                    assertEquals(200, RawHttp.read(client.getInputStream()).status());
                }
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }

    /** @return a server with {@code slots} connection slots, a memory of {@code nonces} and the given request timeout */
    private ServerFixture slotted(int slots, int nonces, Duration timeout) throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        return ServerFixture.start(dir, clock, NonceStore.inMemory(nonces, clock), Signing.SECRET_LINE,
                ServerFixture.limits().withMaxConnections(slots).withRequestTimeout(timeout));
    }

    /** @return a connection from {@code clientAddress} (any 127/8 address is this host's) */
    private static Socket connectFrom(String clientAddress, int port) throws Exception {
        Socket s = new Socket();
        s.bind(new java.net.InetSocketAddress(clientAddress, 0));
        s.connect(new java.net.InetSocketAddress("127.0.0.1", port), RawHttp.SOCKET_TIMEOUT_MILLIS);
        s.setSoTimeout(RawHttp.SOCKET_TIMEOUT_MILLIS);
        return s;
    }

    /** @return a connection from {@code clientAddress} that has sent the start of a request and nothing more */
    private static Socket floodFrom(String clientAddress, int port) throws Exception {
        Socket s = connectFrom(clientAddress, port);
        s.getOutputStream().write(ascii("GET /v1/hea"));
        return s;
    }

    /**
     * SPEC section 3, short timeouts against slow clients: a signed client that pipelines requests with large
     * answers and never reads them. Each answer's write then blocks once the socket buffers are full; it had no
     * deadline, and an authenticated connection is never evicted, so three such connections held all three slots
     * for good and no one else was ever accepted. Now the client has the request timeout to take each answer.
     */
    @Test
    void aSignedClientThatNeverReadsItsAnswersHoldsItsSlotNoLongerThanTheTimeout() throws Exception {
        int slots = 3;
        try (ServerFixture f = slotted(slots, 1000, Duration.ofSeconds(1))) {
            // A listing of about a megabyte: a few of them fill any socket buffer.
            for (int i = 0; i < 5000; i++) {
                f.ops.create(ascii("{\"instanceId\":\"mc-" + i + "\"}"));
            }
            List<Socket> pinned = new ArrayList<>();
            try {
                for (int c = 0; c < slots; c++) {
                    Socket s = new Socket();
                    pinned.add(s);
                    s.setReceiveBufferSize(4096);
                    s.connect(new java.net.InetSocketAddress("127.0.0.1", f.port), RawHttp.SOCKET_TIMEOUT_MILLIS);
                    s.setSoTimeout(RawHttp.SOCKET_TIMEOUT_MILLIS);
                    StringBuilder requests = new StringBuilder();
                    for (int r = 0; r < 20; r++) {
                        requests.append(keepAlive(f, "/v1/instances"));
                    }
                    s.getOutputStream().write(ascii(requests.toString()));
                    // The first answer has begun: this connection is accepted, authenticated and being written to.
                    byte[] start = s.getInputStream().readNBytes(12);
                    assertEquals("HTTP/1.1 200", new String(start, StandardCharsets.US_ASCII));
                }
                // Every slot is held by a connection that reads nothing more; a new client is served once the
                // timeout has cut them off (before the fix: no answer within the socket timeout).
                RawHttp.Response r = f.send("GET", "/v1/health", "");
                assertEquals(200, r.status(), r.text());
            } finally {
                for (Socket s : pinned) {
                    s.close();
                }
            }
        }
    }

    private static String keepAlive(ServerFixture f, String path) {
        StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        f.signedHeaders("GET", path, "").forEach(h -> request.append(h).append("\r\n"));
        return request.append("\r\n").toString();
    }

    @Test
    void bodiesTrickledBehindSignedLookingHeadersHoldNoRequestPermit() throws Exception {
        // Before the fix Helidon took a permit once the headers were in: 40 trickling clients took all 32.
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<Socket> tricklers = new ArrayList<>();
            try {
                for (int i = 0; i < HttpLimits.DEFAULT_MAX_CONCURRENT_REQUESTS + 8; i++) {
                    Socket s = RawHttp.connect(f.port);
                    tricklers.add(s);
                    StringBuilder partial = new StringBuilder("POST " + STOP + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
                    f.signedHeaders("POST", STOP, STOP_BODY).forEach(h -> partial.append(h).append("\r\n"));
                    partial.append("Content-Type: application/json\r\nContent-Length: ").append(STOP_BODY.length())
                            .append("\r\n\r\n{");
                    s.getOutputStream().write(ascii(partial.toString()));
                }
                for (int i = 0; i < 5; i++) {
                    RawHttp.Response r = f.send("GET", "/v1/health", "");
                    assertEquals(200, r.status(), r.text());
                }
            } finally {
                for (Socket s : tricklers) {
                    s.close();
                }
            }
        }
    }

    /**
     * SPEC section 3 (1.1): 200 hostile connections (unsigned keep-alive loops, stalled bodies behind
     * signed-looking headers, headers sent slowly), each reconnecting when the agent closes it; meanwhile
     * a well-behaved client, one new connection per request, gets every answer in under a second.
     */
    @Test
    void twoHundredHostileConnectionsDoNotStarveASignedClient() throws Exception {
        int hostile = 200;
        try (ServerFixture f = ServerFixture.start(dir)) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger connections = new AtomicInteger();
            ExecutorService attackers = Executors.newVirtualThreadPerTaskExecutor();
            try {
                for (int i = 0; i < hostile; i++) {
                    int kind = i % 3;
                    attackers.submit(() -> attack(f, kind, running, connections));
                }
                long waitUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (connections.get() < hostile && System.nanoTime() < waitUntil) {
                    Thread.onSpinWait();
                }
                assertTrue(connections.get() >= hostile, "only " + connections.get() + " hostile connections opened");
                List<Long> millis = Collections.synchronizedList(new ArrayList<>());
                for (int i = 0; i < 30; i++) {
                    long start = System.nanoTime();
                    RawHttp.Response r;
                    try (Socket s = RawHttp.connect(f.port)) {
                        s.setSoTimeout(1000);
                        s.getOutputStream().write(ascii(RawHttp.request("GET", "/v1/health",
                                f.signedHeaders("GET", "/v1/health", ""), "")));
                        r = RawHttp.read(s.getInputStream());
                    }
                    long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
                    millis.add(took);
                    assertEquals(200, r.status(), r.text());
                    assertTrue(took < 1000, "a signed request took " + took + " ms among hostile clients");
                }
                System.getLogger(getClass().getName()).log(System.Logger.Level.INFO,
                        "signed requests among " + hostile + " hostile connections, ms: " + millis);
            } finally {
                running.set(false);
                attackers.shutdownNow();
                assertTrue(attackers.awaitTermination(30, TimeUnit.SECONDS), "attackers did not stop");
            }
        }
    }

    /** One hostile client: opens a connection, misbehaves in its way, and reconnects when it is closed. */
    private static Void attack(ServerFixture f, int kind, AtomicBoolean running, AtomicInteger connections) {
        while (running.get()) {
            try (Socket s = RawHttp.connect(f.port)) {
                connections.incrementAndGet();
                OutputStream out = s.getOutputStream();
                switch (kind) {
                    case 0 -> { // unsigned requests, kept alive if the agent lets them
                        while (running.get()) {
                            out.write(ascii("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
                            RawHttp.read(s.getInputStream());
                        }
                    }
                    case 1 -> { // signed-looking headers, then a body that never completes
                        out.write(ascii("POST " + STOP + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                                + "DoGaMa-HMAC-SHA256 AAAA\r\nContent-Type: application/json\r\nContent-Length: 60000"
                                + "\r\n\r\n{"));
                        RawHttp.millisUntilClosed(s);
                    }
                    default -> { // headers that never end
                        out.write(ascii("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
                        RawHttp.millisUntilClosed(s);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // closed by the agent: reconnect
            }
        }
        return null;
    }

    /**
     * Bytes pipelined behind an answer that ended the connection are never served, and never logged
     * either: Helidon logs a WARNING with the request's path for a handler that neither answers nor ends
     * the connection, which gave anyone one unlimited log line of their choosing per connection.
     */
    @Test
    void aRequestAfterAnAnswerThatEndedTheConnectionLeavesNoWarningInTheLog() throws Exception {
        Logger helidon = Logger.getLogger("io.helidon.webserver");
        Logger connections = Logger.getLogger("io.helidon.webserver.ConnectionHandler");
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch closed = new CountDownLatch(1);
        Handler watch = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(r.getLoggerName() + ": " + r.getMessage());
                }
                if (r.getMessage() != null && r.getMessage().contains("socket closed")) {
                    closed.countDown(); // Helidon's last word on a connection, after everything it logs for it
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = connections.getLevel();
        helidon.addHandler(watch);
        connections.setLevel(Level.FINE);
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            String path = "/" + "a".repeat(2000);
            s.getOutputStream().write(("GET /v1/health HTTP/1.1\r\nHost: a\r\n\r\nGET " + path
                    + " HTTP/1.1\r\nHost: a\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertEquals(401, r.status(), r.text());
            assertEquals(-1, s.getInputStream().read(), "the connection stayed open after an unsigned request");
            assertTrue(closed.await(20, TimeUnit.SECONDS), "Helidon never finished with the connection");
            assertEquals(List.of(), f.ops.calls);
        } finally {
            helidon.removeHandler(watch);
            connections.setLevel(before);
        }
        assertEquals(List.of(), warnings, "a client's bytes made the agent log a warning");
    }
}
