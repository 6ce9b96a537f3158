package io.dogama.agent.docker;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.ContainerSpec.BindMount;
import io.dogama.agent.core.ContainerSpec.Limits;
import io.dogama.agent.core.ContainerSpec.PublishedPort;
import io.dogama.agent.core.ContainerSpec.RestartPolicy;
import io.dogama.agent.core.ContainerSpec.TmpfsMount;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.docker.HostConfigView.MountView;
import io.dogama.agent.docker.HostConfigView.PortBindingView;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every operation against the real engine, including its 404, 409 and 304 answers. */
class DockerEngineIntegrationTest {
    /** A process that ignores SIGTERM, so only the kill after the stop timeout ends it. */
    static final List<String> IGNORE_TERM = List.of("/bin/sh", "-c",
            "trap '' TERM; while :; do /bin/busybox sleep 1; done");
    static final long MEMORY = 64L * 1024 * 1024;

    static DockerEngine engine;
    static String demoId;
    static String network;
    static String internalNetwork;
    static String runLabel;
    final List<String> created = new ArrayList<>();
    Path hostDir;

    @BeforeAll
    static void setUp() throws DockerException {
        demoId = TestDocker.demoImageId();
        engine = DockerEngine.connect(TestDocker.socket());
        network = TestDocker.randomName();
        internalNetwork = TestDocker.randomName();
        TestDocker.cli("network", "create", network);
        TestDocker.cli("network", "create", "--internal", internalNetwork);
        runLabel = TestDocker.randomName();
    }

    @AfterAll
    static void tearDown() {
        if (engine != null) {
            engine.close();
        }
        TestDocker.tryRun(TestDocker.dockerCli(), "network", "rm", network);
        TestDocker.tryRun(TestDocker.dockerCli(), "network", "rm", internalNetwork);
    }

    @AfterEach
    void removeContainers() throws IOException {
        for (String id : created) {
            TestDocker.tryRun(TestDocker.dockerCli(), "rm", "-f", id);
        }
        if (hostDir != null) {
            Files.deleteIfExists(hostDir);
        }
    }

    /** A spec of the demo image under a fresh name, tracked for removal. */
    ContainerSpec spec(Optional<List<String>> entrypoint, List<PublishedPort> ports, List<String> networks,
            List<BindMount> mounts) {
        String name = TestDocker.randomName();
        created.add(name);
        return new ContainerSpec(name, demoId, Optional.empty(), entrypoint, Map.of("GREETING", "hello"),
                Optional.of("65534:65534"), Optional.empty(), Map.of("io.dogama.test-run", runLabel, "owner", "t", "io.dogama.managed", "true"),
                List.of(), mounts, List.of(new TmpfsMount("/tmp", 1024 * 1024)), ports,
                new Limits(MEMORY, 500_000_000L, 64), networks, true, new RestartPolicy(RestartPolicy.Mode.NO, 0),
                Optional.empty());
    }

    ContainerSpec simple() {
        return spec(Optional.empty(), List.of(), List.of(network), List.of());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    ContainerInfo inspect(String id) throws DockerException {
        return engine.inspectContainer(id).orElseGet(() -> fail("container " + id + " vanished"));
    }

    @Test
    void versionIsNegotiatedOnceAndNeverBelowTheMinimum() throws DockerException {
        EngineVersion v = engine.version();
        assertFalse(v.version().isEmpty());
        assertTrue(minor(v.negotiated()) >= minor(DockerEngine.MIN_API_VERSION), v.toString());
        // negotiated = min(engine, MAX_API_VERSION); the engine here is 20.10, API 1.41.
        String expected = minor(v.apiVersion()) < minor(DockerEngine.MAX_API_VERSION) ? v.apiVersion()
                : DockerEngine.MAX_API_VERSION;
        assertEquals(expected, v.negotiated());
    }

    static int minor(String apiVersion) {
        assertTrue(apiVersion.matches("^1\\.[0-9]{1,3}$"), apiVersion);
        return Integer.parseInt(apiVersion.substring(2));
    }

    /** ping() itself refuses anything but 200 "OK" (HostileEngineTest.aPingAnsweredWithAnythingButOkFails). */
    @Test
    void pingAnswers() {
        assertDoesNotThrow(engine::ping, "the real engine answers 200 OK to _ping");
    }

    /** The real engine's data root: the folder holding every container's own folder. */
    @Test
    void theDataRootIsTheFolderOfTheEnginesContainers() throws DockerException {
        java.nio.file.Path root = engine.info().dataRoot();
        assertTrue(root.isAbsolute(), root.toString());
        assertTrue(java.nio.file.Files.isDirectory(root.resolve("containers")), root + " holds no containers folder");
    }

    /** The real engine's CPUs: the count it refuses a larger CPU quota than. */
    @Test
    void theCpuCountIsTheEnginesOwn() throws DockerException {
        long present;
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/cpuinfo"))) {
            present = lines.filter(l -> l.startsWith("processor")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        int cpus = engine.info().cpus();
        assertTrue(cpus >= 1 && cpus <= present, cpus + " CPUs, " + present + " present");
    }

    @Test
    void inspectImageByTagAndIdAndMissing() throws DockerException {
        ImageInfo byTag = engine.inspectImage(TestDocker.DEMO_IMAGE).orElseGet(() -> fail("demo image missing"));
        assertEquals(demoId, byTag.id());
        assertEquals(demoId, engine.inspectImage(demoId).orElseThrow().id());
        assertEquals(Optional.empty(), engine.inspectImage("dogama/no-such-image:1"));
        assertEquals(Optional.empty(), engine.inspectImage("sha256:" + "0".repeat(64)));
    }

    @Test
    void anImagesDeclaredVolumesAreReported(@TempDir Path context) throws Exception {
        assertEquals(List.of(), engine.inspectImage(demoId).orElseThrow().volumes());
        Files.writeString(context.resolve("Dockerfile"), "FROM " + demoId + "\nVOLUME /var/lib/x /data/\n");
        String tag = TestDocker.randomName() + ":1";
        TestDocker.cli("build", "-q", "-t", tag, context.toString());
        try {
            assertEquals(List.of("/data/", "/var/lib/x"),
                    engine.inspectImage(tag).orElseThrow().volumes().stream().sorted().toList());
        } finally {
            TestDocker.tryRun(TestDocker.dockerCli(), "rmi", tag);
        }
    }

    @Test
    void inspectNetworkTypedAndMissing() throws DockerException {
        NetworkInfo n = engine.inspectNetwork(internalNetwork).orElseGet(() -> fail("network missing"));
        assertEquals(internalNetwork, n.name());
        assertEquals("bridge", n.driver());
        assertTrue(n.internal());
        assertFalse(engine.inspectNetwork(network).orElseThrow().internal());
        assertEquals(Optional.empty(), engine.inspectNetwork(TestDocker.randomName()));
    }

    @Test
    void createHonoursTheBaseline() throws Exception {
        hostDir = Files.createTempDirectory("dogama-test-mount");
        int port = freePort();
        ContainerSpec s = spec(Optional.empty(),
                List.of(new PublishedPort(8080, new HostPort("127.0.0.1", port, Protocol.TCP))), List.of(network),
                List.of(new BindMount(hostDir.toString(), "/data", true)));
        String id = engine.createContainer(s);
        ContainerInfo c = inspect(id);
        assertEquals(id, c.id());
        assertEquals(s.name(), c.name());
        assertEquals(demoId, c.image());
        // Of its labels, only the agent's own are read (Views.CONTAINER): an image's author chooses the others.
        assertEquals(Map.of("io.dogama.managed", "true"), c.labels());
        assertEquals("created", c.state().status());
        assertEquals(Optional.empty(), c.state().startedAt());
        assertEquals(Optional.empty(), c.state().exitCode());
        HostConfigView h = c.hostConfig();
        assertFalse(h.privileged());
        assertTrue(h.init());
        assertEquals(List.of("ALL"), h.capDrop());
        assertEquals(List.of(), h.capAdd());
        assertEquals(List.of("no-new-privileges:true"), h.securityOpt());
        assertEquals(64, h.pidsLimit());
        assertEquals(MEMORY, h.memory());
        assertEquals(MEMORY, h.memorySwap());
        assertEquals(500_000_000L, h.nanoCpus());
        assertTrue(h.readonlyRootfs());
        assertEquals(network, h.networkMode());
        assertEquals("private", h.ipcMode());
        assertEquals("private", h.cgroupnsMode());
        assertEquals("", h.pidMode());
        assertEquals("", h.usernsMode());
        assertEquals("", h.utsMode());
        assertEquals(List.of(), h.binds());
        assertEquals(List.of(new MountView("bind", hostDir.toString(), "/data", true, "rprivate")), h.mounts());
        assertEquals(Map.of("/tmp", "rw,noexec,nosuid,nodev,size=1048576"), h.tmpfs());
        assertEquals(List.of(new PortBindingView(8080, new HostPort("127.0.0.1", port, Protocol.TCP))),
                h.portBindings());
        // What the view leaves out, checked once on the raw answer: the engine kept its defaults.
        String raw = TestDocker.cli("inspect", "--format",
                "{{json .HostConfig.MaskedPaths}} {{.HostConfig.LogConfig.Type}} {{json .HostConfig.LogConfig.Config}}"
                        + " {{json .HostConfig.Devices}} {{json .HostConfig.Sysctls}} {{.Config.User}} {{json .Config.Env}}",
                id);
        assertTrue(raw.startsWith("[\"/proc/asound\""), raw);
        assertTrue(raw.contains(" json-file {\"max-file\":\"3\",\"max-size\":\"10m\"} null null 65534:65534 "), raw);
        assertTrue(raw.contains("\"GREETING=hello\""), raw);
    }

    @Test
    void createWithATakenNameIsAConflict() throws DockerException {
        ContainerSpec s = simple();
        engine.createContainer(s);
        assertThrows(DockerConflictException.class, () -> engine.createContainer(s));
    }

    @Test
    void createWithAMissingImageIsNotFound() {
        ContainerSpec base = simple();
        ContainerSpec s = new ContainerSpec(base.name(), "sha256:" + "0".repeat(64), base.command(),
                base.entrypoint(), base.env(), base.user(), base.workingDir(), base.labels(), base.capAdd(),
                base.mounts(), base.tmpfs(), base.ports(), base.resources(), base.networks(), base.readOnlyRootfs(),
                base.restartPolicy(), base.stopSignal());
        assertThrows(DockerNotFoundException.class, () -> engine.createContainer(s));
    }

    @Test
    void extraNetworksAreConnectedAfterCreate() throws DockerException {
        ContainerSpec s = spec(Optional.empty(), List.of(), List.of(network, internalNetwork), List.of());
        String id = engine.createContainer(s);
        String nets = TestDocker.cli("inspect", "--format",
                "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", id);
        assertEquals(List.of(network, internalNetwork).stream().sorted().toList(),
                List.of(nets.split(" ")).stream().sorted().toList());
    }

    @Test
    void aMissingNetworkIsNotFoundAndLeavesNoContainer() {
        ContainerSpec extra = spec(Optional.empty(), List.of(), List.of(network, TestDocker.randomName()), List.of());
        assertThrows(DockerNotFoundException.class, () -> engine.createContainer(extra));
        ContainerSpec first = spec(Optional.empty(), List.of(), List.of(TestDocker.randomName()), List.of());
        assertThrows(DockerNotFoundException.class, () -> engine.createContainer(first));
        for (ContainerSpec s : List.of(extra, first)) {
            assertEquals("", TestDocker.cli("ps", "-aq", "--filter", "name=^" + s.name() + "$"));
        }
    }

    @Test
    void aNameTheEngineKnowsOnlyAsTheStartOfAnotherNetworksIdIsNotFound() throws DockerException {
        String prefix = engine.inspectNetwork(internalNetwork).orElseThrow().id().substring(0, 12);
        // the engine's own answer: the missing name resolves to the network whose ID begins with it
        assertEquals(internalNetwork, engine.inspectNetwork(prefix).orElseThrow().name());
        assertThrows(DockerNotFoundException.class, () -> engine.lookUpNetworks(List.of(network, prefix)));
        for (List<String> networks : List.of(List.of(prefix), List.of(network, prefix))) {
            ContainerSpec s = spec(Optional.empty(), List.of(), networks, List.of());
            assertThrows(DockerNotFoundException.class, () -> engine.createContainer(s));
            assertEquals("", TestDocker.cli("ps", "-aq", "--filter", "name=^" + s.name() + "$"));
        }
    }

    @Test
    void startStopAreIdempotentThrough304() throws DockerException {
        String id = engine.createContainer(simple());
        engine.startContainer(id);
        ContainerInfo running = inspect(id);
        assertTrue(running.state().running());
        assertEquals("running", running.state().status());
        assertTrue(running.state().startedAt().isPresent());
        engine.startContainer(id); // 304
        engine.stopContainer(id, 5);
        ContainerInfo stopped = inspect(id);
        assertEquals("exited", stopped.state().status());
        assertFalse(stopped.state().running());
        assertTrue(stopped.state().exitCode().isPresent());
        engine.stopContainer(id, 5); // 304
    }

    @Test
    void aStopThatNeedsItsTimeoutWaitsThenKills() throws DockerException {
        String id = engine.createContainer(spec(Optional.of(IGNORE_TERM), List.of(), List.of(network), List.of()));
        engine.startContainer(id);
        long t0 = System.nanoTime();
        engine.stopContainer(id, 1);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(took.compareTo(Duration.ofSeconds(1)) >= 0, "stop returned before its timeout: " + took);
        ContainerInfo c = inspect(id);
        assertEquals("exited", c.state().status());
        assertEquals(Optional.of(137), c.state().exitCode(), "killed after the timeout");
    }

    @Test
    void restartStartsAgain() throws DockerException {
        String id = engine.createContainer(simple());
        engine.startContainer(id);
        String first = inspect(id).state().startedAt().orElseThrow();
        engine.restartContainer(id, 2);
        ContainerInfo c = inspect(id);
        assertTrue(c.state().running());
        assertNotEquals(first, c.state().startedAt().orElseThrow());
    }

    @Test
    void renameAndItsConflictAndNotFound() throws DockerException {
        ContainerSpec a = simple();
        ContainerSpec b = simple();
        String id = engine.createContainer(a);
        engine.createContainer(b);
        String renamed = a.name() + "-r1";
        created.add(renamed);
        engine.renameContainer(id, renamed);
        assertEquals(id, inspect(renamed).id());
        assertEquals(Optional.empty(), engine.inspectContainer(a.name()));
        assertThrows(DockerConflictException.class, () -> engine.renameContainer(id, b.name()));
        assertThrows(DockerNotFoundException.class, () -> engine.renameContainer(a.name(), "dogama-test-x"));
    }

    @Test
    void removeForcesARunningContainerAndThenIsNotFound() throws DockerException {
        String id = engine.createContainer(simple());
        engine.startContainer(id);
        engine.removeContainer(id);
        assertEquals(Optional.empty(), engine.inspectContainer(id));
        assertThrows(DockerNotFoundException.class, () -> engine.removeContainer(id));
    }

    @Test
    void operationsOnAMissingContainerAreNotFound() {
        String missing = TestDocker.randomName();
        assertThrows(DockerNotFoundException.class, () -> engine.startContainer(missing));
        assertThrows(DockerNotFoundException.class, () -> engine.stopContainer(missing, 1));
        assertThrows(DockerNotFoundException.class, () -> engine.restartContainer(missing, 1));
        assertThrows(DockerNotFoundException.class, () -> engine.stats(missing));
    }

    @Test
    void inspectOfAMissingContainerIsEmpty() throws DockerException {
        assertEquals(Optional.empty(), engine.inspectContainer(TestDocker.randomName()));
    }

    @Test
    void statsOfARunningContainer() throws DockerException {
        String id = engine.createContainer(simple());
        assertEquals(new ContainerStats(0, 0, 0, 0, 0, 0, 0, 0), engine.stats(id), "a container never started");
        engine.startContainer(id);
        ContainerStats first = engine.stats(id);
        assertTrue(first.memoryBytes() > 0, first.toString());
        assertEquals(MEMORY, first.memoryLimitBytes(), first.toString());
        assertTrue(first.pids() >= 1, first.toString());
        assertEquals(0.0, first.cpuPercent(), "no earlier sample on the first one-shot call");
        ContainerStats second = engine.stats(id);
        assertTrue(second.cpuPercent() >= 0 && second.cpuPercent() <= 100.0 * Runtime.getRuntime().availableProcessors(),
                second.toString());
    }

    @Test
    void listByLabelFindsRunningAndStoppedOnly() throws DockerException {
        String a = engine.createContainer(simple());
        String b = engine.createContainer(simple());
        engine.startContainer(a);
        List<ContainerSummary> found = engine.listContainersByLabel("io.dogama.test-run", runLabel);
        assertEquals(List.of(a, b).stream().sorted().toList(), found.stream().map(ContainerSummary::id).sorted().toList());
        ContainerSummary sa = found.stream().filter(s -> s.id().equals(a)).findFirst().orElseThrow();
        assertEquals("running", sa.state());
        assertEquals(Map.of("io.dogama.managed", "true"), sa.labels());
        assertTrue(sa.names().getFirst().startsWith("dogama-test-"), sa.toString());
        assertEquals(List.of(), engine.listContainersByLabel("io.dogama.test-run", runLabel + "-other"));
    }

    @Test
    void publishedHostPortsCountRunningContainersOnly() throws Exception {
        int port = freePort();
        HostPort bound = new HostPort("127.0.0.1", port, Protocol.TCP);
        String id = engine.createContainer(
                spec(Optional.empty(), List.of(new PublishedPort(8080, bound)), List.of(network), List.of()));
        assertFalse(engine.publishedHostPorts().contains(bound), "a created container holds no port");
        engine.startContainer(id);
        assertTrue(engine.publishedHostPorts().contains(bound), "a running container holds its port");
        engine.stopContainer(id, 2);
        assertFalse(engine.publishedHostPorts().contains(bound), "a stopped container holds no port");
    }
}
