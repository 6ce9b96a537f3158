package io.dogama.agent.docker.internal;

import static io.dogama.agent.docker.internal.FakeEngine.MARKER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerConflictException;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerNotFoundException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.EngineInfo;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.docker.NetworkInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client against an engine that misbehaves on purpose: every failure is typed, arrives within
 * the configured limits, carries no engine text, and leaves no connection behind.
 */
class HostileEngineTest {
    static final Duration READ = Duration.ofMillis(300);
    static final Duration REQUEST = Duration.ofSeconds(2);
    static final int MAX_HEADER = 1024;
    static final int MAX_BODY = 64 * 1024;
    static final int MAX_LISTING = 256 * 1024;
    /** A body limit far above what one test allocates otherwise. */
    static final int LARGE_BODY = 32 * 1024 * 1024;
    static final DockerLimits SMALL = new DockerLimits(Duration.ofSeconds(1), READ, REQUEST, Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofSeconds(2), MAX_HEADER, MAX_BODY, MAX_LISTING, 256 * 1024, 4096, 2, 4);

    @TempDir
    Path dir;
    /** Labels or volumes in an answer made as large as an image's author can: about 3 MB, under LARGE_BODY. */
    static final int BOMB_LABELS = 200_000;
    /** The ID the half-made create gets. */
    static final String HALF_MADE = "c".repeat(64);
    FakeEngine fake;
    DockerEngine engine;

    /** The scripted misbehaviour, chosen by the container name the test asks for. */
    static FakeEngine.After hostile(FakeEngine.Received r, OutputStream out, InputStream in) throws IOException {
        String t = r.target();
        // A create that half succeeds: made, its further network refused, and the container then not removable.
        if (t.startsWith("/v1.41/containers/create?name=half-made")) {
            return FakeEngine.json(out, 201, "{\"Id\":\"" + HALF_MADE + "\"}");
        }
        if (t.startsWith("/v1.41/networks/") && t.endsWith("/connect")
                || t.startsWith("/v1.41/containers/" + HALF_MADE) && r.method().equals("DELETE")) {
            return FakeEngine.json(out, 500, "{\"message\":\"" + MARKER + "\"}");
        }
        // A create answered with another container's name for an ID: what a later removal would act on.
        if (t.startsWith("/v1.41/containers/create?name=by-name")) {
            return FakeEngine.json(out, 201, "{\"Id\":\"dogama-other\"}");
        }
        String scenario = t.startsWith("/v1.41/containers/") ? t.substring(18, t.indexOf('/', 18)) : t;
        switch (scenario) {
            case "endless-headers" -> {
                out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] h = ("X-Evil: " + MARKER + "\r\n").getBytes(StandardCharsets.US_ASCII);
                while (true) {
                    out.write(h);
                }
            }
            case "huge-header-line" -> {
                out.write(("HTTP/1.1 200 OK\r\nX-Evil: " + MARKER).getBytes(StandardCharsets.US_ASCII));
                byte[] junk = new byte[4096];
                java.util.Arrays.fill(junk, (byte) 'a');
                while (true) {
                    out.write(junk);
                }
            }
            case "slow-headers" -> {
                out.write("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                while (true) {
                    out.write("X-A: b\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    FakeEngine.paceUntilClientCloses(in, Duration.ofMillis(100));
                }
            }
            case "huge-length" -> {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n{".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "endless-chunks" -> {
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] chunk = ("2000\r\n" + "x".repeat(0x2000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                while (true) {
                    out.write(chunk);
                }
            }
            case "bad-chunk-size" -> {
                out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz" + MARKER + "\r\n{}\r\n0\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "chunk-without-crlf" -> {
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "endless-chunk-line" -> {
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                while (true) {
                    out.write("0000000000".getBytes(StandardCharsets.US_ASCII));
                }
            }
            case "truncated-body" -> {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"Id\":".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.After.CLOSE;
            }
            case "length-and-chunked" -> {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "bad-status" -> {
                out.write(("HTTP/1.1 2OO " + MARKER + "\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "not-http" -> {
                out.write((MARKER + " 200 OK\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "interim" -> {
                out.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "bare-lf" -> {
                out.write("HTTP/1.1 200 OK\nContent-Length: 2\n\n{}".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "folded-header" -> {
                out.write(("HTTP/1.1 200 OK\r\nX-A: b\r\n " + MARKER + "\r\nContent-Length: 2\r\n\r\n{}")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "declares-the-limit" -> {
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE_BODY + "\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "label-bomb" -> {
                // An image's labels, copied into its container: megabytes under the body limit, and the agent's own.
                StringBuilder b = new StringBuilder("{\"Id\":\"" + "b".repeat(64) + "\",\"Name\":\"/label-bomb\","
                        + "\"Config\":{\"Env\":[\"" + MARKER + "\"],\"Labels\":{");
                for (int i = 0; i < BOMB_LABELS; i++) {
                    b.append("\"l.").append(i).append("\":\"v\",");
                }
                b.append("\"io.dogama.managed\":\"true\",\"io.dogama.instance-id\":\"x1\"}},"
                        + "\"State\":{\"Status\":\"running\",\"Running\":true,\"Health\":{\"Log\":[\"" + MARKER + "\"]}},"
                        + "\"HostConfig\":{\"Privileged\":false},\"Mounts\":[{\"Source\":\"/" + MARKER + "\"}]}");
                return FakeEngine.json(out, 200, b.toString());
            }
            case "kept-twice" -> {
                return FakeEngine.json(out, 200, "{\"Id\":\"a\",\"Skipped\":1,\"Skipped\":2,\"Id\":\"b\"}");
            }
            case "never-answers" -> {
                return FakeEngine.awaitClientClose(in);
            }
            case "malformed-json" -> {
                return FakeEngine.json(out, 200, "{\"Id\": " + MARKER + "}");
            }
            case "wrong-type" -> {
                return FakeEngine.json(out, 200, "{\"Id\": [\"" + MARKER + "\"]}");
            }
            case "error-500" -> {
                return FakeEngine.json(out, 500, "{\"message\":\"" + MARKER + " /etc/secret\"}");
            }
            case "until-close" -> {
                out.write("HTTP/1.1 404 Not Found\r\n\r\n{\"message\":\"no\"}".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.After.CLOSE;
            }
            case "connection-close" -> {
                out.write("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return FakeEngine.awaitClientClose(in);
            }
            case "close-without-answer" -> {
                return FakeEngine.After.CLOSE;
            }
            case "answer-then-close" -> {
                FakeEngine.json(out, 404, "{\"message\":\"no\"}");
                return FakeEngine.After.CLOSE;
            }
            default -> {
                if (t.contains("/containers/conflicted/start")) {
                    return FakeEngine.json(out, 409, "{\"message\":\"" + MARKER + "\"}");
                }
                if (t.contains("/containers/running/start") || t.contains("/containers/stopped/stop")) {
                    return FakeEngine.empty(out, 304);
                }
                if (t.startsWith("/v1.41/images/volume-bomb/json")) {
                    // The image's volumes are kept whole (a check compares them): as many as fill the body limit.
                    StringBuilder b = new StringBuilder("{\"Id\":\"sha256:" + "c".repeat(64) + "\",\"Config\":{\"Volumes\":{");
                    for (int i = 0; i < BOMB_LABELS; i++) {
                        b.append("\"/v/").append(i).append("\":{},");
                    }
                    b.append("\"/last\":{}}}}");
                    return FakeEngine.json(out, 200, b.toString());
                }
                if (t.contains("/images/create")) {
                    return pull(r, out);
                }
                return FakeEngine.json(out, 404, "{\"message\":\"" + MARKER + "\"}");
            }
        }
    }

    static FakeEngine.After pull(FakeEngine.Received r, OutputStream out) throws IOException {
        out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        if (r.target().contains("tag=error")) {
            chunk(out, "{\"status\":\"Pulling\"}\r\n");
            chunk(out, "{\"errorDetail\":{\"message\":\"" + MARKER + "\"},\"error\":\"" + MARKER + "\"}\r\n");
        } else if (r.target().contains("tag=huge-message")) {
            chunk(out, "{\"status\":\"" + "x".repeat(8000) + "\"}\r\n");
        } else if (r.target().contains("tag=endless")) {
            while (true) {
                chunk(out, "{\"status\":\"Downloading\",\"progress\":\"[=>   ]\"}\r\n".repeat(100));
            }
        } else {
            chunk(out, "{\"status\":\"Pulling from x\"}\r\n");
            chunk(out, "{\"status\":\"Digest: sha256:" + "a".repeat(64) + "\"}\r\n");
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return FakeEngine.After.KEEP;
    }

    static void chunk(OutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /**
     * A create whose further network cannot be connected and whose half-made container cannot be removed:
     * the container may exist, so the failure is one whose effect is unknown (the lifecycle then searches for
     * it, as after a lost answer), not the connect's plain refusal, after which nothing was looked for and the
     * container stayed behind untracked.
     */
    @Test
    void aHalfMadeContainerThatCannotBeRemovedIsAFailureOfUnknownEffect() {
        ContainerSpec s = new ContainerSpec("half-made", CreateBodyTest.IMAGE, Optional.empty(), Optional.empty(),
                java.util.Map.of(), Optional.empty(), Optional.empty(), java.util.Map.of(), List.of(), List.of(),
                List.of(), List.of(), new ContainerSpec.Limits(1 << 24, 100_000_000, 32), List.of("one", "two"), false,
                ContainerSpec.RestartPolicy.NO, Optional.empty());
        List<NetworkInfo> networks = List.of(new NetworkInfo("a".repeat(64), "one", "bridge", false),
                new NetworkInfo("b".repeat(64), "two", "bridge", false));
        DockerUnavailableException e = assertThrows(DockerUnavailableException.class,
                () -> engine.createContainer(s, networks));
        assertFalse(e.getMessage().contains(MARKER), e.getMessage());
        assertInstanceOf(DockerApiException.class, e.getCause(), "the connect's own failure is kept as the cause");
    }

    /**
     * An engine that answers a create with a name (or a short prefix) for the new container's ID: a failed
     * network would have removed the container by that name, another instance's, before any identity check.
     */
    @Test
    void aCreatedContainersIdThatIsNotAFullIdIsRefusedBeforeAnythingActsOnIt() {
        ContainerSpec s = new ContainerSpec("by-name", CreateBodyTest.IMAGE, Optional.empty(), Optional.empty(),
                java.util.Map.of(), Optional.empty(), Optional.empty(), java.util.Map.of(), List.of(), List.of(),
                List.of(), List.of(), new ContainerSpec.Limits(1 << 24, 100_000_000, 32), List.of("one", "two"), false,
                ContainerSpec.RestartPolicy.NO, Optional.empty());
        List<NetworkInfo> networks = List.of(new NetworkInfo("a".repeat(64), "one", "bridge", false),
                new NetworkInfo("b".repeat(64), "two", "bridge", false));
        assertThrows(DockerProtocolException.class, () -> engine.createContainer(s, networks));
        assertEquals(List.of(), fake.receivedOn("/connect"), "no network connected to the named container");
        assertEquals(List.of(), fake.received.stream().filter(r -> r.method().equals("DELETE")).toList(),
                "nothing removed by the name the engine gave");
        // A network named by the engine with less than a full ID is not connected either.
        List<NetworkInfo> byName = List.of(new NetworkInfo("a".repeat(64), "one", "bridge", false),
                new NetworkInfo("host", "two", "bridge", false));
        int creates = fake.receivedOn("/containers/create").size();
        assertThrows(DockerProtocolException.class, () -> engine.createContainer(s, byName));
        assertEquals(creates, fake.receivedOn("/containers/create").size(), "refused before the create");
    }

    /**
     * Bytes the engine sends on a connection after its answer was read sit in the socket, not in the
     * connection's buffer: taken from the idle pool, the connection would hand them to the next call as its
     * answer. Such a connection is closed instead.
     */
    @Test
    void bytesThatArriveOnAnIdleConnectionAreNeverTheNextCallsAnswer() throws Exception {
        fake.close();
        engine.close();
        String a = "a".repeat(64);
        String b = "b".repeat(64);
        String injected = "e".repeat(64);
        java.util.concurrent.CountDownLatch readA = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch sent = new java.util.concurrent.CountDownLatch(1);
        fake = new FakeEngine(dir.resolve("engine4.sock"), (r, out, in) -> {
            if (r.target().equals("/v1.41/containers/" + a + "/json")) {
                FakeEngine.json(out, 200, "{\"Id\":\"" + a + "\",\"Name\":\"/a\"}");
                try {
                    if (!readA.await(10, TimeUnit.SECONDS)) {
                        return FakeEngine.After.CLOSE;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return FakeEngine.After.CLOSE;
                }
                FakeEngine.json(out, 200, "{\"Id\":\"" + injected + "\",\"Name\":\"/b\"}");
                sent.countDown();
                return FakeEngine.After.KEEP;
            }
            if (r.target().equals("/v1.41/containers/" + b + "/json")) {
                return FakeEngine.json(out, 200, "{\"Id\":\"" + b + "\",\"Name\":\"/b\"}");
            }
            return FakeEngine.json(out, 404, "{}");
        });
        engine = DockerEngine.connect(dir.resolve("engine4.sock"), SMALL);
        assertEquals(a, engine.inspectContainer(a).orElseThrow().id());
        readA.countDown();
        assertTrue(sent.await(10, TimeUnit.SECONDS), "the fake sent its unasked answer");
        assertEquals(b, engine.inspectContainer(b).orElseThrow().id(), "B's own answer, on a new connection");
    }

    @BeforeEach
    void start() throws Exception {
        fake = new FakeEngine(dir.resolve("engine.sock"), HostileEngineTest::hostile);
        engine = DockerEngine.connect(dir.resolve("engine.sock"), SMALL);
    }

    @AfterEach
    void stop() throws IOException {
        if (engine != null) {
            engine.close();
        }
        fake.close();
    }

    /** A 200 to {@code _ping} is not enough: something on the socket that is not the engine answers 200 too. */
    @Test
    void aPingAnsweredWithAnythingButOkFails() throws Exception {
        engine.ping();
        fake.pingBody("NO");
        DockerProtocolException e = assertThrows(DockerProtocolException.class, () -> engine.ping());
        assertEquals("docker: ping: unexpected answer", e.getMessage());
        fake.pingBody("OK");
        engine.ping();
    }

    /**
     * The data root is compared with the allowed roots as a path: one that is relative, not normal, or no path
     * at all names no fixed folder, and is refused as a protocol error that carries none of its text.
     */
    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"DockerRootDir\":7}", "{\"DockerRootDir\":\"\"}",
            "{\"DockerRootDir\":\"MARKER/docker\"}", "{\"DockerRootDir\":\"/var/MARKER/../lib/docker\"}",
            "{\"DockerRootDir\":\"/var/lib/MARKER/\"}", "{\"DockerRootDir\":\"/var//MARKER\"}",
            "{\"DockerRootDir\":\"/var/./MARKER\"}", "{\"DockerRootDir\":\"/var/MARKER\\u0000x\"}"})
    void aDataRootThatIsNoAbsoluteNormalPathIsAProtocolError(String info) throws DockerException {
        assertEquals(Path.of("/var/lib/docker"), engine.info().dataRoot());
        fake.infoJson(info.replace("MARKER", MARKER).replace("}", ",\"NCPU\":2}"));
        assertClean(assertThrows(DockerProtocolException.class, () -> engine.info()));
        fake.infoJson("{\"DockerRootDir\":\"/srv/" + MARKER + "\",\"NCPU\":2}");
        assertEquals(new EngineInfo(Path.of("/srv/" + MARKER), 2), engine.info());
    }

    /** The CPU count bounds every plan's CPU quota: one the engine does not state is no count at all. */
    @ParameterizedTest
    @ValueSource(strings = {"", ",\"NCPU\":0", ",\"NCPU\":-1", ",\"NCPU\":65537", ",\"NCPU\":\"2\"",
            ",\"NCPU\":2.5", ",\"NCPU\":null"})
    void aCpuCountOutsideItsRangeIsAProtocolError(String ncpu) throws DockerException {
        fake.infoJson("{\"DockerRootDir\":\"/var/lib/docker\"" + ncpu + "}");
        assertClean(assertThrows(DockerProtocolException.class, () -> engine.info()));
        fake.infoJson("{\"DockerRootDir\":\"/var/lib/docker\",\"NCPU\":65536}");
        assertEquals(65536, engine.info().cpus());
    }

    /**
     * An answer is read as it arrives and only what the views read is kept: of a container's labels the agent's
     * own, none of its environment, health log or mounts. An image's author may fill an inspect with labels up to
     * the body limit; parsed whole, each byte took 15 to 20 bytes of heap, and a few such answers at once ended the
     * agent (a helper's review).
     */
    @Test
    void onlyTheAgentsOwnLabelsAreKeptOfAnInspect() throws DockerException {
        try (DockerEngine large = largeBodies()) {
            ContainerInfo c = large.inspectContainer("label-bomb").orElseThrow();
            assertEquals(Map.of("io.dogama.managed", "true", "io.dogama.instance-id", "x1"), c.labels());
            assertEquals("running", c.state().status());
            assertFalse(c.hostConfig().privileged());
        }
    }

    /**
     * What is kept whole (an image's volumes, which a check compares) is bounded too: past {@link Tree#MAX_KEPT_UNITS}
     * the answer is a protocol error, carrying none of its text, and the connection is not used again.
     */
    @Test
    void anAnswerThatWouldKeepMoreThanTheBudgetIsAProtocolError() throws Exception {
        try (DockerEngine large = largeBodies()) {
            DockerProtocolException e = assertThrows(DockerProtocolException.class,
                    () -> large.inspectImage("volume-bomb"));
            assertEquals("docker: the engine's answer holds more than the agent keeps", e.getMessage());
            assertClean(e);
            large.ping();
        }
    }

    /** A member the views read, named twice, is a protocol error (which would win is the parser's choice). */
    @Test
    void aKeptMemberNamedTwiceIsAProtocolError() {
        DockerProtocolException e = assertThrows(DockerProtocolException.class,
                () -> engine.inspectContainer("kept-twice"));
        assertEquals("docker: a JSON object names a kept member twice", e.getMessage());
    }

    /** A client whose body limit takes the bombs in whole, so that what refuses them is the keeping, not the size. */
    private DockerEngine largeBodies() throws DockerException {
        return DockerEngine.connect(dir.resolve("engine.sock"), new DockerLimits(SMALL.connectTimeout(),
                Duration.ofSeconds(5), Duration.ofSeconds(20), SMALL.pingTimeout(), SMALL.stopMargin(),
                SMALL.pullTimeout(), MAX_HEADER, LARGE_BODY, MAX_LISTING, 256 * 1024, 4096, 2, 4));
    }

    /** No exception in the chain carries engine text. */
    static void assertClean(Throwable t) {
        for (Throwable x = t; x != null; x = x.getCause()) {
            assertFalse(String.valueOf(x.getMessage()).contains(MARKER), "engine text leaked: " + x);
            assertFalse(String.valueOf(x.getMessage()).contains("/etc/secret"), "engine text leaked: " + x);
            for (Throwable s : x.getSuppressed()) {
                assertClean(s);
            }
        }
        assertTrue(t.getMessage().startsWith("docker: "), t.getMessage());
    }

    static void await(BooleanSupplier condition, String what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within 5 s: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    <T extends DockerException> T failsWithin(Class<T> type, Duration bound, String scenario) {
        int before = fake.accepted.get();
        long t0 = System.nanoTime();
        T e = assertThrows(type, () -> engine.inspectContainer(scenario), scenario);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(bound) <= 0, scenario + " took " + took + ", bound " + bound);
        assertClean(e);
        SocketDockerEngine impl = (SocketDockerEngine) engine;
        assertEquals(0, impl.transport().pool().idleCount(), "a broken connection was kept for reuse");
        // Every connection the scenario used is over: nothing is left open.
        int used = fake.accepted.get();
        await(() -> fake.ended.get() >= used, "the client closes the broken connection");
        // And the next request works, on a fresh connection.
        try {
            engine.ping();
        } catch (DockerException ex) {
            fail("ping after " + scenario + " failed", ex);
        }
        assertEquals(Math.max(before, 1) + 1, fake.accepted.get(), "the next request opened a new connection");
        return e;
    }

    @ParameterizedTest
    @ValueSource(strings = {"endless-headers", "huge-header-line", "huge-length", "endless-chunks", "bad-chunk-size",
        "chunk-without-crlf", "endless-chunk-line", "truncated-body", "length-and-chunked", "bad-status", "not-http",
        "interim", "bare-lf", "folded-header"})
    void aMalformedOrOversizedAnswerIsAProtocolError(String scenario) {
        // Limits trip long before any timeout: well under the read timeout of 300 ms plus slack.
        failsWithin(DockerProtocolException.class, Duration.ofMillis(1500), scenario);
    }

    @ParameterizedTest
    @ValueSource(strings = {"malformed-json", "wrong-type"})
    void badJsonInAWellFramedAnswerIsAProtocolError(String scenario) throws DockerException {
        assertClean(assertThrows(DockerProtocolException.class, () -> engine.inspectContainer(scenario)));
        engine.ping();
        // The answer is read as it arrives. Where the JSON itself went wrong the parse stopped there, and what is left
        // would be read as the next answer: the connection is closed and the next call gets a new one. A well-formed
        // answer of the wrong type was read to its end, and its connection serves the next call.
        assertEquals(scenario.equals("malformed-json") ? 2 : 1, fake.accepted.get());
    }

    /**
     * An answer that declares a body as large as the limit allows and then sends one byte holds no more heap
     * than the bytes that came: sized by the declared length, each of the client's connections held the
     * limit's worth (4 MiB by default) until the read timed out.
     */
    @Test
    void aDeclaredLengthAloneReservesNoHeap() throws Exception {
        engine.close();
        engine = DockerEngine.connect(dir.resolve("engine.sock"), new DockerLimits(Duration.ofSeconds(1), READ,
                REQUEST, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), MAX_HEADER,
                LARGE_BODY, LARGE_BODY, 256 * 1024, 4096, 2, 4));
        engine.ping();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        assertClean(assertThrows(DockerTimeoutException.class, () -> engine.inspectContainer("declares-the-limit")));
        long allocated = threads.getTotalThreadAllocatedBytes() - before;
        assertTrue(allocated < LARGE_BODY / 4, "allocated " + allocated + " bytes for one byte of a declared "
                + LARGE_BODY);
    }

    /**
     * An engine that stops reading while a request is written (8 MiB, far more than the socket's buffer): the write
     * is bounded by the call's own deadline, not by whatever socket timeout the connection had (none on a new one,
     * or an earlier stop's, up to its 300 s plus the margin).
     */
    @Test
    void aWriteTheEngineNeverReadsEndsWithinTheCallsDeadline() throws Exception {
        ContainerSpec s = new ContainerSpec(FakeEngine.STALL_WRITE, CreateBodyTest.IMAGE, Optional.empty(),
                Optional.empty(), java.util.Map.of("PAD", "x".repeat(8 << 20)), Optional.empty(), Optional.empty(),
                java.util.Map.of(), List.of(), List.of(), List.of(), List.of(),
                new ContainerSpec.Limits(1 << 24, 100_000_000, 32), List.of("one"), false,
                ContainerSpec.RestartPolicy.NO, Optional.empty());
        List<NetworkInfo> networks = List.of(new NetworkInfo("a".repeat(64), "one", "bridge", false));
        long t0 = System.nanoTime();
        DockerException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(DockerException.class, () -> engine.createContainer(s, networks)),
                "the write was not bounded by the call's deadline");
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(REQUEST.plusSeconds(3)) <= 0, "took " + took + ", the call's deadline " + REQUEST);
        assertClean(e);
    }

    @Test
    void anEngineThatNeverAnswersTripsTheReadTimeout() {
        long t0 = System.nanoTime();
        failsWithin(DockerTimeoutException.class, READ.plusMillis(700), "never-answers");
        assertTrue(System.nanoTime() - t0 >= READ.toNanos(), "failed before the read timeout");
    }

    @Test
    void aSlowDripTripsTheRequestDeadline() {
        long t0 = System.nanoTime();
        // Each header comes within the read timeout; the whole-request deadline still ends it.
        failsWithin(DockerTimeoutException.class, REQUEST.plusMillis(1000), "slow-headers");
        assertTrue(System.nanoTime() - t0 >= REQUEST.toNanos() - 50_000_000L, "failed before the request deadline");
    }

    @Test
    void engineErrorTextIsNeverCarried() throws Exception {
        DockerApiException e = assertThrows(DockerApiException.class, () -> engine.inspectContainer("error-500"));
        assertEquals(500, e.status());
        assertClean(e);
        DockerConflictException c = assertThrows(DockerConflictException.class,
                () -> engine.startContainer("conflicted"));
        assertClean(c);
        assertEquals(Optional.empty(), engine.inspectContainer("missing"));
        // The error answers were read to their end, so the one connection served them all.
        assertEquals(1, fake.accepted.get());
    }

    @Test
    void notModifiedOnStartAndStopIsSuccess() throws DockerException {
        engine.startContainer("running");
        engine.stopContainer("stopped", 1);
        assertEquals(1, fake.receivedOn("/containers/running/start").size());
        assertEquals(1, fake.receivedOn("/containers/stopped/stop?t=1").size());
    }

    @Test
    void keepAliveConnectionsAreReused() throws DockerException {
        for (int i = 0; i < 20; i++) {
            engine.ping();
        }
        assertEquals(1, fake.accepted.get(), "one keep-alive connection for version and 20 pings");
    }

    @Test
    void aBodyFramedByCloseIsReadButTheConnectionIsNotReused() throws DockerException {
        assertEquals(Optional.empty(), engine.inspectContainer("until-close"));
        engine.ping();
        assertEquals(2, fake.accepted.get());
    }

    @Test
    void connectionCloseIsHonoured() throws DockerException {
        assertEquals(Optional.empty(), engine.inspectContainer("connection-close"));
        await(() -> fake.ended.get() >= 1, "the client closed the connection the engine asked to close");
        engine.ping();
        assertEquals(2, fake.accepted.get());
    }

    @Test
    void concurrentCallsShareAtMostMaxConnections() throws Exception {
        try (var threads = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            java.util.List<java.util.concurrent.Future<?>> all = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                all.add(threads.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        assertEquals(Optional.empty(), engine.inspectContainer("missing"));
                    }
                    return null;
                }));
            }
            for (var f : all) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        ConnectionPool pool = ((SocketDockerEngine) engine).transport().pool();
        assertTrue(pool.peakInUse() <= SMALL.maxConnections(), "peak " + pool.peakInUse());
        assertTrue(pool.idleCount() <= SMALL.maxIdleConnections(), "idle " + pool.idleCount());
        assertEquals(401, fake.receivedOn("/").size(), "every call was answered once (plus /version)");
    }

    @Test
    void aGetOnAConnectionTheEngineClosedWhileIdleIsRetriedOnce() throws DockerException {
        assertEquals(Optional.empty(), engine.inspectContainer("answer-then-close"));
        await(() -> fake.ended.get() >= 1, "the fake closed its end");
        // The pooled connection is dead now; the ping must notice and use a new one.
        engine.ping();
        assertEquals(2, fake.accepted.get());
    }

    @Test
    void aPostTheEngineDroppedIsNotRetried() {
        assertThrows(DockerException.class, () -> engine.startContainer("close-without-answer"));
        assertEquals(1, fake.receivedOn("/containers/close-without-answer/start").size(), "sent exactly once");
    }

    @Test
    void pullFailsOnAnErrorMessageInTheStream() throws DockerException {
        engine.pullImage("example.org/x:ok");
        DockerApiException e = assertThrows(DockerApiException.class, () -> engine.pullImage("example.org/x:error"));
        assertEquals(200, e.status());
        assertClean(e);
        assertClean(assertThrows(DockerProtocolException.class, () -> engine.pullImage("example.org/x:huge-message")));
        long t0 = System.nanoTime();
        assertClean(assertThrows(DockerProtocolException.class, () -> engine.pullImage("example.org/x:endless")));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "the stream limit trips before the deadline");
        FakeEngine.Received ok = fake.receivedOn("/images/create").getFirst();
        assertEquals("/v1.41/images/create?fromImage=example.org%2Fx&tag=ok", ok.target());
    }

    @Test
    void aSaturatedClientWaitsOnlyTheConnectTimeout() throws Exception {
        DockerLimits one = new DockerLimits(Duration.ofMillis(300), Duration.ofSeconds(3), Duration.ofSeconds(3),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), MAX_HEADER, MAX_BODY, MAX_LISTING,
                256 * 1024, 4096, 1, 1);
        try (DockerEngine single = DockerEngine.connect(dir.resolve("engine.sock"), one)) {
            CompletableFuture<Void> hanging = CompletableFuture.runAsync(() -> {
                try {
                    single.inspectContainer("never-answers");
                } catch (DockerException e) {
                    // expected once the read timeout passes
                }
            });
            await(() -> !fake.receivedOn("never-answers").isEmpty(), "the hanging request reached the fake");
            long t0 = System.nanoTime();
            assertThrows(DockerTimeoutException.class, single::ping);
            long took = System.nanoTime() - t0;
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(250) && took < TimeUnit.SECONDS.toNanos(2),
                    "waited " + took / 1_000_000 + " ms");
            hanging.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void callsTheEngineHoldsDoNotHoldUpOthersMadeOnVirtualThreads() throws Exception {
        // As request handlers make them: on virtual threads. junixsocket's own wait for a readable socket
        // holds one of its pool's threads (one per core) per waiting call, so with as many held calls as
        // cores the next call waited until one of them ended (the read timeout here, 10 s).
        int held = Runtime.getRuntime().availableProcessors() + 1;
        DockerLimits roomy = new DockerLimits(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), MAX_HEADER, MAX_BODY, MAX_LISTING,
                256 * 1024, 4096, 2, held + 2);
        try (DockerEngine client = DockerEngine.connect(dir.resolve("engine.sock"), roomy);
                var callers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            java.util.List<java.util.concurrent.Future<DockerException>> holding = new java.util.ArrayList<>();
            for (int i = 0; i < held; i++) {
                holding.add(callers.submit(
                        () -> assertThrows(DockerException.class, () -> client.inspectContainer("never-answers"))));
            }
            await(() -> fake.receivedOn("never-answers").size() == held, "every held call reached the fake");
            long t0 = System.nanoTime();
            var answered = callers.submit(() -> client.inspectContainer("missing"));
            assertEquals(Optional.empty(), answered.get(10, TimeUnit.SECONDS));
            long took = System.nanoTime() - t0;
            assertTrue(took < TimeUnit.SECONDS.toNanos(3), "an answered call waited " + took / 1_000_000
                    + " ms behind " + held + " held ones");
            // Ends the held calls at once (the fake closes their connections) rather than at their timeout;
            // each of them fails, as a call whose connection breaks must.
            fake.close();
            for (var h : holding) {
                assertClean(h.get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aClosedClientRefusesWork() {
        engine.close();
        assertThrows(DockerUnavailableException.class, engine::ping);
    }

    @Test
    void hostileAnswersLeakNoFileDescriptors() throws Exception {
        for (int i = 0; i < 3; i++) {
            hostileRound();
        }
        long before = openFds();
        for (int i = 0; i < 10; i++) {
            hostileRound();
        }
        int accepted = fake.accepted.get();
        await(() -> fake.ended.get() >= accepted - 1, "every broken connection closed");
        long after = openFds();
        // 10 rounds x 5 broken connections (x2 ends in this process) would show as +100.
        assertTrue(after - before <= 4, "descriptors before " + before + ", after " + after);
    }

    private void hostileRound() {
        for (String s : new String[] {"endless-headers", "huge-length", "bad-chunk-size", "truncated-body",
            "malformed-json"}) {
            assertThrows(DockerProtocolException.class, () -> engine.inspectContainer(s));
        }
    }

    static long openFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void stopsThatTakeTheirWholeTimeoutLeaveAConnectionForThePing() throws Exception {
        fake.close();
        engine.close();
        CountDownLatch release = new CountDownLatch(1);
        fake = new FakeEngine(dir.resolve("engine3.sock"), (r, out, in) -> {
            if (r.target().contains("/stop?")) {
                // a container that ignores SIGTERM: the engine answers once the timeout has run out
                try {
                    if (!release.await(20, TimeUnit.SECONDS)) {
                        throw new IOException("never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
                return FakeEngine.empty(out, 204);
            }
            return FakeEngine.json(out, 400, "{}");
        });
        engine = DockerEngine.connect(dir.resolve("engine3.sock"), SMALL);
        int stops = SMALL.maxConnections();
        assertEquals(3, SMALL.maxLongCalls(), "a quarter of the four connections kept for short calls");
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<?>> stopping = new ArrayList<>();
            for (int i = 0; i < stops; i++) {
                String id = "c" + i;
                stopping.add(pool.submit(() -> {
                    engine.stopContainer(id, 60);
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // Only once the last stop waits for its turn could it, without the limit, hold the last connection.
            while (fake.receivedOn("/stop?").size() < SMALL.maxLongCalls()
                    || ((SocketDockerEngine) engine).longCallsWaiting() < stops - SMALL.maxLongCalls()) {
                assertTrue(System.nanoTime() < deadline, "the stops never reached the engine, or the last one never "
                        + "waited for its turn (" + fake.receivedOn("/stop?").size() + " received)");
                LockSupport.parkNanos(1_000_000); // leave the two cores to the stops' threads
            }
            // every stop waits on the engine or for its turn; the ping still gets a connection
            engine.ping();
            assertEquals(SMALL.maxLongCalls(), fake.receivedOn("/stop?").size(), "a stop beyond the long calls ran");
            release.countDown();
            for (Future<?> f : stopping) {
                f.get(20, TimeUnit.SECONDS);
            }
            assertEquals(stops, fake.receivedOn("/stop?").size());
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void aCreateWhoseNetworkConnectFailsRemovesTheContainer() throws Exception {
        fake.close();
        engine.close();
        String id = "c".repeat(64);
        String netId = "d".repeat(64);
        fake = new FakeEngine(dir.resolve("engine2.sock"), (r, out, in) -> {
            if (r.target().startsWith("/v1.41/networks/") && r.method().equals("GET")) {
                String name = r.target().substring("/v1.41/networks/".length());
                return FakeEngine.json(out, 200,
                        "{\"Id\":\"" + netId + "\",\"Name\":\"" + name + "\",\"Driver\":\"bridge\"}");
            }
            if (r.target().startsWith("/v1.41/containers/create?name=dogama-x")) {
                return FakeEngine.json(out, 201, "{\"Id\":\"" + id + "\",\"Warnings\":[]}");
            }
            if (r.target().equals("/v1.41/networks/" + netId + "/connect")) {
                return FakeEngine.json(out, 500, "{\"message\":\"" + MARKER + "\"}");
            }
            if (r.method().equals("DELETE")) {
                return FakeEngine.empty(out, 204);
            }
            return FakeEngine.json(out, 400, "{}");
        });
        engine = DockerEngine.connect(dir.resolve("engine2.sock"), SMALL);
        var spec = CreateBodyTest.sample("dogama-x", java.util.List.of("net-a", "net-b"));
        DockerApiException e = assertThrows(DockerApiException.class, () -> engine.createContainer(spec));
        assertEquals(500, e.status());
        assertClean(e);
        assertEquals("{\"Container\":\"" + id + "\",\"EndpointConfig\":{}}",
                fake.receivedOn("/connect").getFirst().body());
        assertEquals(java.util.List.of("/v1.41/containers/" + id + "?force=true&v=false&link=false"),
                fake.received.stream().filter(r -> r.method().equals("DELETE")).map(FakeEngine.Received::target)
                        .toList());
    }

    @Test
    void aRefusedStartIsAboutTheEnginesStateARefusedCreateIsNot() throws Exception {
        fake.close();
        engine.close();
        // What the soak met: after its restart, the engine answered starts with a 400 from its own network store.
        fake = new FakeEngine(dir.resolve("engine3.sock"), (r, out, in) -> {
            if (r.target().endsWith("/start") && r.target().contains("gone-")) {
                return FakeEngine.json(out, 404, "{\"message\":\"" + MARKER + "\"}");
            }
            return FakeEngine.json(out, 400, "{\"message\":\"failed to update store " + MARKER + "\"}");
        });
        engine = DockerEngine.connect(dir.resolve("engine3.sock"), SMALL);
        DockerApiException start = assertThrows(DockerApiException.class, () -> engine.startContainer("a".repeat(64)));
        assertEquals(400, start.status());
        assertTrue(start.aboutEngineState(), "a start names only the engine's own container");
        assertClean(start);
        var spec = CreateBodyTest.sample("dogama-x", java.util.List.of("net-a"));
        DockerApiException create = assertThrows(DockerApiException.class, () -> engine.createContainer(spec));
        assertFalse(create.aboutEngineState(), "a refused create is about the body the agent composed");
        DockerApiException stop = assertThrows(DockerApiException.class, () -> engine.stopContainer("a".repeat(64), 1));
        assertFalse(stop.aboutEngineState(), "only a start is marked");
        assertThrows(DockerNotFoundException.class, () -> engine.startContainer("gone-" + "a".repeat(59)));
    }

    @Test
    void anOldEngineIsAClearStartupError() throws Exception {
        fake.versionJson("{\"Version\":\"19.03\",\"ApiVersion\":\"1.40\"}");
        DockerUnavailableException e = assertThrows(DockerUnavailableException.class,
                () -> DockerEngine.connect(dir.resolve("engine.sock"), SMALL));
        assertTrue(e.getMessage().contains("1.40") && e.getMessage().contains("1.41"), e.getMessage());
        fake.versionJson("{\"Version\":\"x\",\"ApiVersion\":\"" + MARKER + "\"}");
        assertClean(assertThrows(DockerProtocolException.class,
                () -> DockerEngine.connect(dir.resolve("engine.sock"), SMALL)));
    }

    @Test
    void aNewerEngineIsSpokenToAtTheHighestSupportedVersion() throws Exception {
        fake.versionJson("{\"Version\":\"28.0\",\"ApiVersion\":\"1.50\",\"MinAPIVersion\":\"1.24\"}");
        try (DockerEngine newer = DockerEngine.connect(dir.resolve("engine.sock"), SMALL)) {
            assertEquals("1.47", newer.version().negotiated());
            newer.ping();
            assertTrue(fake.received.stream().anyMatch(r -> r.target().equals("/v1.47/_ping")), fake.received.toString());
        }
    }

    @Test
    void aMissingSocketIsUnavailable() {
        DockerUnavailableException e = assertThrows(DockerUnavailableException.class,
                () -> DockerEngine.connect(dir.resolve("nothing.sock"), SMALL));
        assertInstanceOf(IOException.class, e.getCause());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "../images/json", "a/b", "a?b=1", "a#b", "a%2Fb", "a b", "a\r\nX-Injected: 1", ".hidden",
        "-flag", "..", "a:b", "é", "a\u0000b"})
    void containerAndNetworkRefsThatCouldInjectAreNeverSent(String bad) {
        int before = fake.received.size();
        assertThrows(IllegalArgumentException.class, () -> engine.inspectContainer(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.startContainer(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.stopContainer(bad, 1));
        assertThrows(IllegalArgumentException.class, () -> engine.restartContainer(bad, 1));
        assertThrows(IllegalArgumentException.class, () -> engine.removeContainer(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.stats(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.inspectNetwork(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.renameContainer("ok", bad));
        assertThrows(IllegalArgumentException.class, () -> engine.renameContainer(bad, "ok"));
        assertEquals(before, fake.received.size(), "nothing was sent");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "../x", "x/../y", "x/./y", "a//b", "/abs", "a:b:c", "a@sha256:123",
        "a b", "a?x=1", "a#x", "a%2Fb", "a\r\nX: 1", "é", "case/Upper", "host:99999999/a"})
    void imageRefsThatCouldInjectAreNeverSent(String bad) {
        int before = fake.received.size();
        assertThrows(IllegalArgumentException.class, () -> engine.inspectImage(bad));
        assertThrows(IllegalArgumentException.class, () -> engine.pullImage(bad));
        assertEquals(before, fake.received.size(), "nothing was sent");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a=b", "a\nb", "-x", "é", "a?b"})
    void labelKeysThatCouldInjectAreNeverSent(String bad) {
        int before = fake.received.size();
        assertThrows(IllegalArgumentException.class, () -> engine.listContainersByLabel(bad, "v"));
        assertEquals(before, fake.received.size(), "nothing was sent");
    }

    @Test
    void labelFilterValuesAreEncodedNotInterpreted() throws Exception {
        try (FakeEngine lists = new FakeEngine(dir.resolve("engine3.sock"),
                (r, out, in) -> FakeEngine.json(out, 200, "[]"));
                DockerEngine e = DockerEngine.connect(dir.resolve("engine3.sock"), SMALL)) {
            assertEquals(java.util.List.of(), e.listContainersByLabel("io.dogama.instance-id", "x&all=false\"]}"));
            assertEquals("/v1.41/containers/json?all=true&filters=%7B%22label%22%3A%5B%22io.dogama.instance-id%3D"
                    + "x%26all%3Dfalse%5C%22%5D%7D%22%5D%7D", lists.receivedOn("/containers/json").getFirst().target());
            int before = lists.received.size();
            assertThrows(IllegalArgumentException.class, () -> e.listContainersByLabel("k", "a\nb"));
            assertThrows(IllegalArgumentException.class, () -> e.listContainersByLabel("k", "x".repeat(257)));
            assertThrows(IllegalArgumentException.class, () -> e.stopContainer("ok", -1));
            assertThrows(IllegalArgumentException.class, () -> e.stopContainer("ok", 301));
            assertEquals(before, lists.received.size(), "nothing was sent");
        }
    }
}
