package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 15, fault campaign: the engine goes away while the agent runs and comes back, and the engine
 * answers one instance slowly while others are driven. The real agent from the jlink image, the real
 * engine behind an {@link EngineLink} the test cuts (the shared engine itself keeps running).
 */
class EngineFaultsE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    static {
        e2e.throughEngineLink();
    }

    /**
     * The engine does not answer while the agent starts (its connection is made on a thread of its own, beside the
     * other start steps): the start fails with exit 69, not the configuration's 78 (an engine that is not up yet
     * at boot must not keep a supervisor from starting the agent again), and releases what it opened, so the next
     * start, with the engine back, works.
     */
    @Test
    void aStartTheEngineDoesNotAnswerIsRefusedAndReleasesWhatItOpened() throws Exception {
        // In the engine's place: a socket that takes each connection and closes it at once.
        String refused = startRefusedWithEngine("mute-engine", c -> {
        });
        assertTrue(refused.contains("exit 69"), refused);
        // The registry's lock, the nonce journal's and the audit log's are free again: a start works.
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals(200, e2e.wire().get("/v1/health").status());
    }

    /**
     * An engine that answers but speaks no API version of the agent's is no passing fault: waiting does not cure it,
     * so the start is refused with the configuration's 78 (exit 69 would have a supervisor start the agent again and
     * again), and the message says what to do.
     */
    @Test
    void anEngineOfAnUnsupportedApiVersionIsRefusedForGood() throws Exception {
        byte[] body = "{\"ApiVersion\":\"1.12\",\"MinAPIVersion\":\"1.12\"}".getBytes(StandardCharsets.US_ASCII);
        byte[] answer = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n" + new String(body, StandardCharsets.US_ASCII)).getBytes(StandardCharsets.US_ASCII);
        String refused = startRefusedWithEngine("old-engine", c -> {
            c.read(java.nio.ByteBuffer.allocate(8192)); // the request head: GET /version
            c.write(java.nio.ByteBuffer.wrap(answer));
        });
        assertTrue(refused.contains("exit 78"), refused);
        assertTrue(refused.contains("upgrade the Docker engine"), refused);
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals(200, e2e.wire().get("/v1/health").status());
    }

    /** What a fake engine does with one connection before it is closed. */
    @FunctionalInterface
    private interface FakeEngine {
        void serve(java.nio.channels.SocketChannel connection) throws IOException;
    }

    /**
     * Starts the agent with {@code engine} in the real engine's place, expects the start to fail, and puts the real
     * engine back.
     *
     * @return the failed start's description (its exit status and output)
     */
    private static String startRefusedWithEngine(String name, FakeEngine engine) throws Exception {
        e2e.stopAgent();
        e2e.engineLink().down();
        java.nio.channels.ServerSocketChannel fake = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX);
        fake.bind(java.net.UnixDomainSocketAddress.of(e2e.engineLink().path()));
        Thread server = Thread.ofPlatform().daemon().name(name).start(() -> {
            while (fake.isOpen()) {
                try (java.nio.channels.SocketChannel c = fake.accept()) {
                    engine.serve(c);
                } catch (IOException e) {
                    return;
                }
            }
        });
        try {
            return assertThrows(AssertionError.class, () -> e2e.launchWith(RepoLayout.agentLauncher())).getMessage();
        } finally {
            fake.close();
            server.join(Duration.ofSeconds(20));
            Files.deleteIfExists(e2e.engineLink().path());
            e2e.engineLink().up();
        }
    }

    /**
     * Every container's file system, volume and state lies below the engine's data root, in folders owned by root,
     * which the walk to a bind source lets pass: a root holding it would let a plan mount another container's
     * files. The configuration cannot say where it is, so the start asks the engine, and refuses (exit 78) a root
     * that is the data root or holds it. (The socket reached through the link keeps the configuration's own rule,
     * no root around the socket's folder, out of the way: the real socket lies in the data root's parent.)
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAllowedRootHoldingTheEnginesDataRootIsRefused(boolean itsParent) throws Exception {
        Path dataRoot = Path.of(e2e.engine().run("info", "--format", "{{.DockerRootDir}}").strip());
        Path root = itsParent ? dataRoot.getParent() : dataRoot;
        e2e.stopAgent();
        assertRefusedWithRoot(root, "refusing to start: allowed root instances (" + root
                + ") holds the Docker engine's data root " + dataRoot + ", or lies inside it");
    }

    /**
     * Starts the agent (stopped by the caller) with {@code root} as its only allowed root: refused (exit 78) with
     * {@code message}; then, with the config as it was, it starts and answers.
     */
    private static void assertRefusedWithRoot(Path root, String message) throws Exception {
        byte[] kept = Files.readAllBytes(e2e.config());
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        c.put("allowedRoots", Map.of("instances", root.toString()));
        try {
            Files.writeString(e2e.config(), Json.write(c));
            AssertionError refused = assertThrows(AssertionError.class,
                    () -> e2e.launchWith(RepoLayout.agentLauncher()));
            assertTrue(refused.getMessage().contains("exit 78"), refused.getMessage());
            assertTrue(refused.getMessage().contains(message), refused.getMessage());
        } finally {
            Files.write(e2e.config(), kept);
        }
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals(200, e2e.wire().get("/v1/health").status());
    }

    /**
     * The same through a bind mount: a root that is a folder of its own, the data root mounted onto it. Compared as
     * paths the two are apart; the agent compares where each is mounted too (a helper's review: the agent answered
     * check-disk for the engine's own files).
     */
    @Test
    void anAllowedRootThatIsABindOfTheEnginesDataRootIsRefused() throws Exception {
        Path dataRoot = Path.of(e2e.engine().run("info", "--format", "{{.DockerRootDir}}").strip());
        Path root = Files.createDirectory(e2e.base().resolve("bound-root"));
        e2e.stopAgent();
        Engine.command(List.of("mount", "--bind", dataRoot.toString(), root.toString()));
        try {
            assertRefusedWithRoot(root, "refusing to start: allowed root instances (" + root
                    + ") and the Docker engine's data root are, through their mounts,");
        } finally {
            Engine.command(List.of("umount", root.toString()));
        }
    }

    @Test
    void theEngineGoneAndBackWithoutAnAgentRestart() {
        Plans.Plan a = e2e.plan(e2e.instanceId("gone-a"));
        assertEquals(201, e2e.wire().post("/v1/instances", a.json()).status());
        assertEquals(200, e2e.wire().post(a.path() + "/start").status());
        Plans.Plan b = e2e.plan(e2e.instanceId("gone-b"));
        long pid = e2e.process().pid();

        e2e.engineLink().down();
        try {
            assertProblem(e2e.wire().get("/v1/health"), 503, "docker_unavailable");
            Wire.Response list = e2e.wire().get("/v1/instances");
            assertEquals(200, list.status(), "the registered list is served from the registry: " + list);
            assertTrue(list.body().contains(a.id()), list.body());
            assertProblem(e2e.wire().post(a.path() + "/stop", "{\"timeoutSeconds\":1}"), 503, "docker_unavailable");
            assertProblem(e2e.wire().post("/v1/instances", b.json()), 503, "docker_unavailable");
            assertProblem(e2e.wire().get(a.path()), 503, "docker_unavailable");
        } finally {
            e2e.engineLink().up();
        }

        assertEquals(200, e2e.wire().get("/v1/health").status());
        assertEquals("RUNNING", e2e.wire().get(a.path()).json().get("state"), "the refused stop changed nothing");
        assertFalse(e2e.wire().get("/v1/instances").body().contains(b.id()), "the refused create left no record");
        assertEquals(0, e2e.engine().containersOf(b.id()).size(), "the refused create left no container");
        assertEquals(200, e2e.wire().post(a.path() + "/stop", "{\"timeoutSeconds\":1}").status());
        assertEquals(201, e2e.wire().post("/v1/instances", b.json()).status());
        assertEquals(204, e2e.wire().delete(a.path()).status());
        assertEquals(204, e2e.wire().delete(b.path()).status());
        assertEquals(pid, e2e.process().pid(), "the same agent process throughout");
    }

    /**
     * The engine answers one instance's stop slowly (its answer held by the link until the test lets
     * it through): that stop holds only its own instance. While it is in flight, a second request on
     * it is instance_busy, and another instance is driven through inspect, stop, start, restart,
     * stats, the list and health.
     */
    @Test
    void aSlowEngineAnswerBlocksOnlyItsOwnInstance() throws Exception {
        Plans.Plan slow = e2e.running("slow");
        Plans.Plan other = e2e.running("other");
        String slowId = e2e.engine().containersOf(slow.id()).getFirst();
        EngineLink.Hold hold = e2e.engineLink().hold("/containers/" + slowId + "/stop");
        CompletableFuture<Wire.Response> stopping;
        try {
            stopping = CompletableFuture.supplyAsync(
                    () -> e2e.wire().post(slow.path() + "/stop", "{\"timeoutSeconds\":1}"));
            assertTrue(hold.awaitHeld(Duration.ofSeconds(20)), "the slow stop never reached the engine");
            assertProblem(e2e.wire().post(slow.path() + "/start"), 409, "instance_busy");

            assertEquals("RUNNING", e2e.wire().get(other.path()).json().get("state"));
            assertEquals(200, e2e.wire().post(other.path() + "/stop", "{\"timeoutSeconds\":0}").status());
            assertEquals(200, e2e.wire().post(other.path() + "/start").status());
            assertEquals(200, e2e.wire().post(other.path() + "/restart", "{\"timeoutSeconds\":0}").status());
            assertEquals(200, e2e.wire().get(other.path() + "/stats").status());
            assertEquals(200, e2e.wire().get("/v1/instances").status());
            assertEquals(200, e2e.wire().get("/v1/health").status());
            assertFalse(stopping.isDone(), () -> "the slow stop was answered while held: " + stopping.join());
        } finally {
            hold.release();
        }
        assertEquals(200, stopping.get(60, TimeUnit.SECONDS).status());
        assertEquals("STOPPED", e2e.wire().get(slow.path()).json().get("state"));
        assertEquals(204, e2e.wire().delete(slow.path()).status());
        assertEquals(204, e2e.wire().delete(other.path()).status());
    }

    /**
     * An image's author chooses its labels, as many as the engine takes (it took 260,000 in 3.5 MB), and the engine
     * copies them into every container made from it: each inspect of such a container is megabytes, under the
     * engine client's 4 MiB limit. Parsed whole, each such answer took about 60 MB of the agent's 96 MiB heap, and
     * a few inspects at once ended it (exit 3, OutOfMemoryError; a helper's review). Read as it arrives, only the
     * agent's own labels are kept: six inspects at once all answer.
     */
    @Test
    void inspectsFullOfAnImagesLabelsLeaveTheAgentAnswering() throws Exception {
        Plans.Plan p = e2e.running("labels");
        String container = e2e.engine().containersOf(p.id()).getFirst();
        e2e.engineLink().padLabels("/containers/" + container + "/json", 200_000);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
        try {
            List<java.util.concurrent.Future<Wire.Response>> reads = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                reads.add(pool.submit(() -> e2e.wire().get(p.path())));
            }
            for (java.util.concurrent.Future<Wire.Response> read : reads) {
                Wire.Response r = read.get(120, TimeUnit.SECONDS);
                assertEquals(200, r.status(), r.toString());
                assertEquals("running", ((Map<?, ?>) r.json().get("container")).get("status"), r.toString());
            }
        } finally {
            e2e.engineLink().noPadding();
            pool.shutdownNow();
        }
        assertEquals(204, e2e.wire().delete(p.path()).status());
    }

    /**
     * A stop signal while a create waits for the engine's answer (the container exists in the engine, the
     * agent has not heard so): the agent still stops within the supervisor's patience, and the next start
     * leaves the instance either created with its one container or
     * absent with none; never a container without a record, never two.
     */
    @Test
    void aStopSignalDuringACreateLeavesNeitherOrphanNorDuplicate() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("sigterm"));
        EngineLink.Hold hold = e2e.engineLink().hold("/containers/create");
        CompletableFuture<String> creating;
        try {
            creating = CompletableFuture.supplyAsync(() -> e2e.wire().post("/v1/instances", p.json()))
                    .handle((r, e) -> r != null ? "answered " + r.status() + " " + r.body() : "not answered");
            assertTrue(hold.awaitHeld(Duration.ofSeconds(20)), "the create never reached the engine");
            assertEquals(1, e2e.engine().containersOf(p.id()).size(), "the engine made the container");
            assertEquals(143, e2e.stopAgent(), "the agent's status after SIGTERM");
        } finally {
            hold.release();
        }
        String answer = creating.get(60, TimeUnit.SECONDS);
        assertFalse(answer.startsWith("answered 201") || answer.startsWith("answered 500"), answer);

        e2e.ensureRunning();
        Wire.Response after = e2e.wire().get(p.path());
        int containers = e2e.engine().containersOf(p.id()).size();
        if (after.status() == 200) {
            assertEquals("CREATED", after.json().get("state"), after.body());
            assertEquals(1, containers, "its one container");
            assertEquals(204, e2e.wire().delete(p.path()).status());
        } else {
            assertEquals(404, after.status(), after.body());
            assertEquals(0, containers, "no container without its record");
        }
        assertEquals(0, e2e.engine().containersOf(p.id()).size());
    }

    /**
     * A stop signal while a stop waits for the engine's answer: the listener closes first, the request in
     * flight then ends with the registry still open (its new state recorded and answered), and only then
     * is the registry closed. Before, the registry was closed first and the request in flight failed on it,
     * left to the next start's reconciliation.
     */
    @Test
    void aStopSignalLetsTheRequestInFlightEndBeforeTheRegistryCloses() throws Exception {
        Plans.Plan p = e2e.running("inflight");
        String containerId = e2e.engine().containersOf(p.id()).getFirst();
        EngineLink.Hold hold = e2e.engineLink().hold("/containers/" + containerId + "/stop");
        CompletableFuture<Wire.Response> stopping;
        CompletableFuture<Integer> exited;
        try {
            stopping = CompletableFuture.supplyAsync(
                    () -> e2e.wire().post(p.path() + "/stop", "{\"timeoutSeconds\":1}"));
            assertTrue(hold.awaitHeld(Duration.ofSeconds(20)), "the stop never reached the engine");
            int port = e2e.listenPort();
            exited = CompletableFuture.supplyAsync(e2e::stopAgent);
            Poll.until(Duration.ofSeconds(20), Duration.ofMillis(5), "the listener closed after SIGTERM",
                    () -> accepts(port) ? Optional.empty() : Optional.of(true));
        } finally {
            hold.release();
        }
        Wire.Response answer = stopping.get(60, TimeUnit.SECONDS);
        assertEquals(200, answer.status(), answer.body());
        assertEquals("STOPPED", answer.json().get("state"), answer.body());
        assertEquals(143, exited.get(60, TimeUnit.SECONDS), "the agent's status after SIGTERM");

        e2e.ensureRunning();
        assertEquals("STOPPED", e2e.wire().get(p.path()).json().get("state"));
        assertEquals(204, e2e.wire().delete(p.path()).status());
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
