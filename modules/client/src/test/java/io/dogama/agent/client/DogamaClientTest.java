package io.dogama.agent.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a scripted server: requests as SPEC section 2 and 3 say, answers typed, no retries. */
class DogamaClientTest {
    static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    static final String INSTANCE = "{\"instanceId\":\"demo-1\",\"templateId\":\"demo-http\",\"templateVersion\":\"1.0.0\","
            + "\"planDigest\":\"sha256:" + "ab".repeat(32) + "\",\"revision\":0,\"state\":\"CREATED\","
            + "\"container\":{\"status\":\"created\"}}";
    static final String RUNNING = INSTANCE.replace("\"CREATED\"", "\"RUNNING\"")
            .replace("{\"status\":\"created\"}", "{\"status\":\"running\",\"startedAt\":\"2026-12-01T19:04:05.1Z\"}");

    private FakeAgent agent;
    private DogamaClient client;

    @BeforeEach
    void start() throws IOException {
        agent = new FakeAgent();
        client = DogamaClient.builder().uri(agent.uri()).secret(SECRET).build();
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        agent.close();
    }

    static Plan demoPlan() {
        return Plan.builder().instanceId("demo-1").templateId("demo-http").templateVersion("1.0.0")
                .image("dogama/demo-http:1").env("GREETING", "hello")
                .mount(new Mount("/srv/dogama/instances/demo-1/data", "/data", false))
                .port(new Port("http", 8080, Protocol.TCP, "127.0.0.1", 20080))
                .resources(new Resources(33554432L, 200000000L, 64)).user("65534:65534").label("owner", "me")
                .networks(List.of("dogama-dev")).build();
    }

    @Test
    void everyRouteSendsWhatSpecSectionTwoSays() {
        agent.json(200, "{\"status\":\"ok\"}")
                .json(200, "{\"paths\":[{\"path\":\"/srv\",\"totalBytes\":10,\"usableBytes\":4}]}")
                .json(200, "{\"bindings\":[{\"hostIp\":\"127.0.0.1\",\"hostPort\":20080,\"protocol\":\"udp\",\"available\":true}]}")
                .json(200, "{\"instances\":[" + INSTANCE.replace(",\"container\":{\"status\":\"created\"}", "") + "]}")
                .json(201, INSTANCE).json(200, INSTANCE.replace("\"revision\":0", "\"revision\":1")).json(200, INSTANCE)
                .json(200, "{\"cpuPercent\":1.5,\"memoryBytes\":1,\"memoryLimitBytes\":2,\"pids\":3,\"networkRxBytes\":4,"
                        + "\"networkTxBytes\":5,\"blockReadBytes\":6,\"blockWriteBytes\":7}")
                .json(200, RUNNING).json(200, INSTANCE).json(200, RUNNING).answer(204, "", "");

        assertEquals(new Health("ok"), client.health());
        assertEquals(List.of(new DiskSpace("/srv", 10, 4)), client.checkDisk(List.of("/srv")));
        PortBinding b = new PortBinding("127.0.0.1", 20080, Protocol.UDP);
        assertEquals(List.of(new PortCheck(b, true)), client.checkPorts(List.of(b)));
        assertEquals(InstanceState.CREATED, client.list().getFirst().state());
        Instance created = client.create(demoPlan());
        assertEquals("demo-1", created.instanceId());
        assertEquals(1, client.replace("demo-1", demoPlan(), 0).revision());
        assertEquals("created", client.inspect("demo-1").container().status());
        assertEquals(new Stats(1.5, 1, 2, 3, 4, 5, 6, 7), client.stats("demo-1"));
        Instance running = client.start("demo-1");
        assertEquals(InstanceState.RUNNING, running.state());
        assertEquals("2026-12-01T19:04:05.1Z", running.container().startedAt());
        assertNull(running.container().exitCode());
        client.stop("demo-1", Duration.ofSeconds(5));
        client.restart("demo-1", Duration.ZERO);
        client.delete("demo-1");

        List<FakeAgent.Received> got = agent.received();
        List<String> lines = got.stream().map(r -> r.method() + " " + r.path() + " " + r.body()).toList();
        String plan = demoPlan().toJson();
        assertEquals(List.of(
                "GET /v1/health ",
                "POST /v1/check-disk {\"paths\":[\"/srv\"]}",
                "POST /v1/check-ports {\"bindings\":[{\"hostIp\":\"127.0.0.1\",\"hostPort\":20080,\"protocol\":\"udp\"}]}",
                "GET /v1/instances ",
                "POST /v1/instances " + plan,
                "PUT /v1/instances/demo-1 {\"plan\":" + plan + ",\"expectedRevision\":0}",
                "GET /v1/instances/demo-1 ",
                "GET /v1/instances/demo-1/stats ",
                "POST /v1/instances/demo-1/start ",
                "POST /v1/instances/demo-1/stop {\"timeoutSeconds\":5}",
                "POST /v1/instances/demo-1/restart {\"timeoutSeconds\":0}",
                "DELETE /v1/instances/demo-1 "), lines);

        RequestSigner oracle = RequestSigner.of(SECRET);
        Set<String> nonces = new HashSet<>();
        for (FakeAgent.Received r : got) {
            String ts = r.header("X-DoGaMa-Timestamp");
            String nonce = r.header("X-DoGaMa-Nonce");
            assertTrue(ts.matches("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$"), ts);
            assertTrue(nonce.matches("^[A-Za-z0-9_-]{22}$"), nonce);
            assertTrue(nonces.add(nonce), "nonce reused");
            assertEquals(oracle.sign(r.method(), r.path(), r.body().getBytes(StandardCharsets.UTF_8), ts, nonce)
                    .authorization(), r.header("Authorization"));
            assertEquals(r.body().isEmpty() ? null : "application/json", r.header("Content-Type"), r::toString);
        }
    }

    @Test
    void planJsonOmitsAbsentOptionalFieldsAndRoundTrips() {
        Plan p = demoPlan();
        String json = p.toJson();
        assertTrue(json.startsWith("{\"instanceId\":\"demo-1\",\"templateId\":\"demo-http\""), json);
        assertTrue(!json.contains("command") && !json.contains("planDigest") && !json.contains("null"), json);
        assertEquals(p, Plan.fromJson(json));
        Plan full = p.toBuilder().command(List.of("httpd")).entrypoint(List.of()).planDigest("sha256:00").build();
        assertEquals(full, Plan.fromJson(full.toJson()));
        assertThrows(IllegalArgumentException.class, () -> Plan.fromJson(json.replace("{\"instanceId\"", "{\"x\":1,\"instanceId\"")));
        assertThrows(IllegalArgumentException.class, () -> Plan.fromJson(json.replace("\"user\":\"65534:65534\"", "\"user\":null")));
    }

    @Test
    void problemsAreTyped() {
        agent.answer(422, "application/problem+json", "{\"type\":\"urn:dogama:problem:plan_rejected\",\"title\":\"t\","
                + "\"status\":422,\"code\":\"plan_rejected\",\"violations\":[{\"field\":\"mounts[0].source\","
                + "\"rule\":\"outside_allowed_root\"},{\"field\":\"user\",\"rule\":\"root_user\"}]}")
                .problem(409, "revision_conflict")
                .answer(502, "text/html", "<html>bad gateway</html>")
                .answer(404, "application/problem+json", "{\"code\":\"plan_rejected\"}");
        DogamaProblemException e = assertThrows(DogamaProblemException.class, () -> client.create(demoPlan()));
        Problem.PlanRejected r = assertInstanceOf(Problem.PlanRejected.class, e.problem());
        assertEquals(List.of(new Violation("mounts[0].source", "outside_allowed_root"), new Violation("user", "root_user")),
                r.violations());
        assertEquals(ProblemCode.PLAN_REJECTED, e.code());
        e = assertThrows(DogamaProblemException.class, () -> client.replace("demo-1", demoPlan(), 3));
        assertEquals(new Problem.Known(ProblemCode.REVISION_CONFLICT, 409, "t"), e.problem());
        e = assertThrows(DogamaProblemException.class, () -> client.list());
        assertEquals(502, assertInstanceOf(Problem.Unrecognized.class, e.problem()).status());
        assertNull(e.code());
        e = assertThrows(DogamaProblemException.class, () -> client.inspect("demo-1"));
        assertInstanceOf(Problem.Unrecognized.class, e.problem(), "a code with the wrong status is not trusted");
    }

    @Test
    void unexpectedSuccessBodiesAreProtocolErrors() {
        agent.json(200, "{\"status\":1}").answer(200, "text/plain", "ok").json(200, "{\"instances\":[{\"state\":\"NEW\"}]}");
        assertThrows(DogamaProtocolException.class, () -> client.health());
        assertThrows(DogamaProtocolException.class, () -> client.health());
        assertThrows(DogamaProtocolException.class, () -> client.list());
        // A number beyond an int is out of range, never narrowed (4294987376 read as port 20080 before).
        agent.json(200, "{\"bindings\":[{\"hostIp\":\"127.0.0.1\",\"hostPort\":4294987376,\"protocol\":\"tcp\","
                + "\"available\":true}]}");
        assertThrows(DogamaProtocolException.class,
                () -> client.checkPorts(List.of(new PortBinding("127.0.0.1", 20080, Protocol.TCP))));
    }

    /**
     * The JDK's HttpClient resends a request unchanged when a reused connection closes under it; the agent then
     * answers replayed_request, and the first delivery may have been acted on. Reported as "the agent decided:
     * nothing was changed" before; an unknown outcome now.
     */
    @Test
    void aReplayedAnswerIsAnUnknownOutcomeNotTheAgentsDecision() {
        agent.problem(401, "replayed_request");
        DogamaTransportException e = assertThrows(DogamaTransportException.class,
                () -> client.stop("demo-1", Duration.ofSeconds(5)));
        assertTrue(e.getMessage().contains("unknown"), e.getMessage());
        assertEquals(1, agent.received().size());
    }

    /** A redirect (a proxy's), and a body with a second value after the first: neither is an answer of the agent. */
    @Test
    void answersNoRouteGivesAreProtocolErrors() {
        agent.answer(307, "text/plain", "").json(200, "{\"status\":\"ok\"} {\"garbage\":1}");
        assertThrows(DogamaProtocolException.class, () -> client.delete("demo-1"));
        assertThrows(DogamaProtocolException.class, () -> client.health());
        assertEquals(2, agent.received().size());
    }

    @Test
    void anAnswerLargerThanTheBoundIsRefusedWhateverItsFraming() {
        long tooLong = DogamaClient.MAX_LIST_ANSWER_BYTES + 1L;
        // Declared up front, then sent in full; and undeclared (chunked) until past the bound.
        agent.raw(out -> {
            out.write(("HTTP/1.1 200 X\r\nContent-Type: application/json\r\nContent-Length: " + tooLong
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            zeros(out, tooLong);
        }).raw(out -> {
            out.write("HTTP/1.1 200 X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = new byte[1 << 16];
            byte[] size = (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            for (long sent = 0; sent < tooLong; sent += chunk.length) {
                out.write(size);
                out.write(chunk);
                out.write(CRLF);
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        });
        for (int i = 0; i < 2; i++) {
            DogamaProtocolException e = assertThrows(DogamaProtocolException.class, () -> client.list());
            assertTrue(e.getMessage().contains("larger than"), e.getMessage());
        }
    }

    @Test
    void anAnswerWhoseBodyTricklesEndsWithTheRequestTimeout() throws IOException {
        CountDownLatch released = new CountDownLatch(1);
        agent.raw(out -> {
            out.write(("HTTP/1.1 200 X\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
                    + "Connection: close\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            try {
                released.await(30, TimeUnit.SECONDS); // the rest never comes while the client waits
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (DogamaClient impatient = DogamaClient.builder().uri(agent.uri()).secret(SECRET)
                .requestTimeout(Duration.ofMillis(500)).build()) {
            DogamaTransportException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> assertThrows(DogamaTransportException.class, () -> impatient.health()));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
        } finally {
            released.countDown();
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};

    private static void zeros(java.io.OutputStream out, long n) throws IOException {
        byte[] b = new byte[1 << 16];
        for (long left = n; left > 0; left -= b.length) {
            out.write(b, 0, (int) Math.min(b.length, left));
        }
    }

    @Test
    void nothingIsRetriedByDefault() {
        agent.problem(401, "stale_request").problem(500, "internal_error").drop();
        DogamaProblemException e = assertThrows(DogamaProblemException.class, () -> client.create(demoPlan()));
        assertEquals(ProblemCode.STALE_REQUEST, e.code());
        assertEquals(ProblemCode.INTERNAL_ERROR,
                assertThrows(DogamaProblemException.class, () -> client.start("demo-1")).code());
        assertThrows(DogamaTransportException.class, () -> client.delete("demo-1"));
        assertEquals(3, agent.received().size(), "each call sent exactly once");
    }

    @Test
    void optInRetriesAStaleRequestOnceWithAFreshSignature() throws IOException {
        try (DogamaClient retrying = DogamaClient.builder().uri(agent.uri()).secret(SECRET).retryStaleRequests(true)
                .build()) {
            agent.problem(401, "stale_request").json(201, INSTANCE)
                    .problem(401, "stale_request").problem(401, "stale_request")
                    .problem(401, "replayed_request")
                    .problem(401, "stale_request").drop();
            assertEquals("demo-1", retrying.create(demoPlan()).instanceId());
            List<FakeAgent.Received> two = agent.received();
            assertEquals(2, two.size());
            assertEquals(two.get(0).body(), two.get(1).body());
            assertNotEquals(two.get(0).header("X-DoGaMa-Nonce"), two.get(1).header("X-DoGaMa-Nonce"));
            assertEquals(ProblemCode.STALE_REQUEST,
                    assertThrows(DogamaProblemException.class, () -> retrying.start("demo-1")).code(), "only once");
            // Never a retry: the agent saw this request twice, so the outcome of the first delivery is unknown.
            assertThrows(DogamaTransportException.class, () -> retrying.start("demo-1"));
            assertThrows(DogamaTransportException.class, () -> retrying.delete("demo-1"));
            assertEquals(7, agent.received().size());
        }
    }

    @Test
    void argumentsAreCheckedBeforeAnythingIsSent() {
        for (String bad : List.of("../x", "a/b", "A1b", "ab", "x?y", "%2e%2e", "demo-1/", "-ab")) {
            assertThrows(IllegalArgumentException.class, () -> client.inspect(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> client.stop("demo-1", Duration.ofSeconds(301)));
        assertThrows(IllegalArgumentException.class, () -> client.stop("demo-1", Duration.ofMillis(1500)));
        assertThrows(IllegalArgumentException.class, () -> client.restart("demo-1", Duration.ofSeconds(-1)));
        assertEquals(List.of(), agent.received());
        assertThrows(IllegalArgumentException.class, () -> DogamaClient.builder().uri(java.net.URI.create("http://h:1/v1")));
        assertThrows(IllegalArgumentException.class, () -> DogamaClient.builder().uri(java.net.URI.create("ftp://h:1")));
        // user info would never be sent, and toString() would print it
        assertThrows(IllegalArgumentException.class,
                () -> DogamaClient.builder().uri(java.net.URI.create("http://user:hunter2@h:1")));
        assertThrows(IllegalStateException.class, () -> DogamaClient.builder().secret(SECRET).build());
    }

    @Test
    void exchangeSignsAnyRequestAndInterpretsNothing() {
        agent.problem(404, "not_found");
        RawResponse r = client.exchange("GET", "/v1/nothing", null);
        assertEquals(404, r.status());
        assertTrue(r.text().contains("not_found"));
        assertEquals("/v1/nothing", agent.received().getFirst().path());
    }

    @Test
    void secretFileIsReadFromItsFirstLineAndMustBePrivate(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("hmac");
        Files.writeString(f, SECRET + "\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        agent.json(200, "{\"status\":\"ok\"}");
        try (DogamaClient c = DogamaClient.builder().uri(agent.uri()).secretFile(f).build()) {
            c.health();
        }
        FakeAgent.Received r = agent.received().getFirst();
        assertEquals(RequestSigner.of(SECRET).sign("GET", "/v1/health", new byte[0], r.header("X-DoGaMa-Timestamp"),
                r.header("X-DoGaMa-Nonce")).authorization(), r.header("Authorization"), "line 1 signs");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertThrows(IllegalArgumentException.class, () -> DogamaClient.builder().secretFile(f));
        Map<String, String> h = RequestSigner.of(SECRET).sign("GET", "/", new byte[0]).asMap();
        assertEquals(List.of("Authorization", "X-DoGaMa-Timestamp", "X-DoGaMa-Nonce"), List.copyOf(h.keySet()));
    }

    /**
     * The agent checks the timestamp before the nonce, so the JDK's unchanged resend of a delivery it acted on, coming
     * after the 30 s window, is answered stale_request. The JDK resends POST, PUT and DELETE only where
     * jdk.httpclient.enableAllMethodRetry is set: there a stale_request to one of them is an unknown outcome, never
     * retried (a helper's review: a restart ran twice); a GET is retried as before, and without the switch a
     * mutation too (its only delivery was refused).
     */
    @Test
    void aStaleAnswerToAMutationTheJdkMayHaveResentIsAnUnknownOutcome() {
        String before = System.getProperty(DogamaClient.JDK_RETRIES_ALL_METHODS);
        DogamaClient retrying;
        try {
            // As the JDK reads it: an empty value (a bare -D) is true.
            System.setProperty(DogamaClient.JDK_RETRIES_ALL_METHODS, "");
            assertTrue(DogamaClient.jdkResendsAll());
            System.setProperty(DogamaClient.JDK_RETRIES_ALL_METHODS, "false");
            assertFalse(DogamaClient.jdkResendsAll());
            System.setProperty(DogamaClient.JDK_RETRIES_ALL_METHODS, "true");
            retrying = DogamaClient.builder().uri(agent.uri()).secret(SECRET).retryStaleRequests(true).build();
        } finally {
            if (before == null) {
                System.clearProperty(DogamaClient.JDK_RETRIES_ALL_METHODS);
            } else {
                System.setProperty(DogamaClient.JDK_RETRIES_ALL_METHODS, before);
            }
        }
        try (retrying) {
            agent.problem(401, "stale_request").problem(401, "stale_request").json(200, INSTANCE)
                    .problem(401, "stale_request").json(200, RUNNING);
            DogamaTransportException e = assertThrows(DogamaTransportException.class, () -> retrying.start("demo-1"));
            assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
            assertEquals(1, agent.received().size(), "a stale answer the JDK may have caused was retried");
            assertEquals("demo-1", retrying.inspect("demo-1").instanceId(), "a GET is retried");
            assertEquals(3, agent.received().size());
            // Without the switch, a mutation's stale answer refused its only delivery: retried once.
            try (DogamaClient plain = DogamaClient.builder().uri(agent.uri()).secret(SECRET).retryStaleRequests(true)
                    .build()) {
                assertEquals(InstanceState.RUNNING, plain.start("demo-1").summary().state());
            }
            assertEquals(5, agent.received().size());
        }
    }

    /** Signed requests never go through a proxy the JVM is told of (a helper's review: one read every request). */
    @Test
    void aProxyTheJvmIsToldOfIsNeverUsed() throws IOException {
        java.net.ProxySelector before = java.net.ProxySelector.getDefault();
        try (java.net.ServerSocket proxy = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
            Thread.ofVirtual().start(() -> {
                while (!proxy.isClosed()) {
                    try {
                        proxy.accept().close();
                        seen.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            java.net.ProxySelector.setDefault(java.net.ProxySelector.of(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), proxy.getLocalPort())));
            try (DogamaClient direct = DogamaClient.builder().uri(agent.uri()).secret(SECRET).build()) {
                agent.json(200, "{\"status\":\"ok\"}");
                assertEquals("ok", direct.health().status());
            }
            assertEquals(1, agent.received().size());
            assertEquals(0, seen.get(), "the request went to the proxy");
        } finally {
            java.net.ProxySelector.setDefault(before);
        }
    }

    /**
     * Every answer but the list's is bounded to a quarter MiB, and no answer may hold more than
     * {@link io.dogama.agent.client.internal.Codec#MAX_VALUES} JSON values, counted before anything is built: a list
     * of empty objects within 16 MiB made the caller run out of heap (a helper's review).
     */
    @Test
    void answersAreBoundedByTheirRouteAndTheirCountOfValues() {
        agent.json(200, "{\"instanceId\":\"" + "x".repeat(DogamaClient.MAX_ANSWER_BYTES) + "\"}");
        assertTrue(assertThrows(DogamaProtocolException.class, () -> client.inspect("demo-1")).getMessage()
                .contains("larger than"));
        agent.json(200, "{\"instances\":[" + "{},".repeat(300_000) + "{}]}");
        assertTrue(assertThrows(DogamaProtocolException.class, () -> client.list()).getMessage()
                .contains("more than 250000 JSON values"));
    }

    /** An answer's text reaches no message: a code of another shape is not shown (a forged log line, a huge one). */
    @Test
    void aCodeOfAnotherShapeIsNotShownInTheMessage() {
        agent.answer(500, "application/problem+json", "{\"status\":500,\"code\":\"x\\r\\nFORGED log line\"}");
        DogamaProblemException e = assertThrows(DogamaProblemException.class, () -> client.start("demo-1"));
        assertTrue(!e.getMessage().contains("FORGED") && e.getMessage().endsWith("(a code of another shape)"),
                e.getMessage());
    }

    /** What exchange() signs is what is sent: a path the JDK would encode or cut, a lower-case method, are refused. */
    @Test
    void exchangeRefusesWhatItCouldNotSendAsSigned() {
        for (String path : List.of("/v1/caf\u00e9", "/v1/x#frag", "/v1/a b")) {
            assertThrows(IllegalArgumentException.class, () -> client.exchange("GET", path, null), path);
        }
        assertThrows(IllegalArgumentException.class, () -> client.exchange("get", "/v1/health", null));
        assertEquals(0, agent.received().size());
    }

    /** A create or a replace may wait for the agent's image pull: its own timeout, longer than the others'. */
    @Test
    void aCreateWaitsItsOwnLongerTimeout() {
        FakeAgent.Raw slowCreated = out -> {
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(1500).toNanos());
            out.write(("HTTP/1.1 201 X\r\nContent-Type: application/json\r\nContent-Length: " + INSTANCE.length()
                    + "\r\nConnection: close\r\n\r\n" + INSTANCE).getBytes(StandardCharsets.ISO_8859_1));
        };
        try (DogamaClient c = DogamaClient.builder().uri(agent.uri()).secret(SECRET)
                .requestTimeout(Duration.ofMillis(500)).createTimeout(Duration.ofSeconds(30)).build()) {
            agent.raw(slowCreated).raw(slowCreated);
            assertEquals("demo-1", c.create(demoPlan()).instanceId());
            assertThrows(DogamaTransportException.class, () -> c.inspect("demo-1"));
        }
        assertEquals(DogamaClient.DEFAULT_CREATE_TIMEOUT, Duration.ofMinutes(12));
    }

    /** A create says which of its two answers came: created (201), or found registered with the same plan (200). */
    @Test
    void createOrFindTellsCreatedFromFound() {
        agent.json(201, INSTANCE).json(200, INSTANCE);
        Creation first = client.createOrFind(demoPlan());
        assertTrue(first.created());
        assertEquals("demo-1", first.instance().instanceId());
        assertFalse(client.createOrFind(demoPlan()).created());
    }

    /**
     * The metrics' answer is checked as every other: a redirect is no answer of the agent's (it was a problem), and
     * replayed_request is an unknown outcome (a helper's review).
     */
    @Test
    void theMetricsAnswerIsCheckedAsEveryOther() {
        agent.answer(302, "text/plain", "").problem(401, "replayed_request")
                .answer(200, "text/plain; version=0.0.4", "dogama_up 1\n");
        assertThrows(DogamaProtocolException.class, () -> client.metrics());
        assertThrows(DogamaTransportException.class, () -> client.metrics());
        assertEquals("dogama_up 1\n", client.metrics());
    }
}
