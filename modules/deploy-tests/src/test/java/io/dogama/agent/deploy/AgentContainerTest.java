package io.dogama.agent.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.HealthStateLog;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.HealthCheck;
import com.github.dockerjava.api.model.Volume;
import io.dogama.agent.client.DogamaClient;
import io.dogama.agent.client.DogamaProblemException;
import io.dogama.agent.client.Health;
import io.dogama.agent.client.Instance;
import io.dogama.agent.client.InstanceState;
import io.dogama.agent.client.InstanceSummary;
import io.dogama.agent.client.Plan;
import io.dogama.agent.client.ProblemCode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The agent image started against the test engine as the deployment runs it (its socket mounted,
 * the secret, config and allowed root mounted, a data volume, an internal control network, no
 * published port, every hardening option), called with signed requests from the Docker host.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class AgentContainerTest {
    static final long PIDS_LIMIT = ComposeTest.PIDS_LIMIT;
    static final long MEMORY_BYTES = 256L << 20;
    /** How often Docker runs the image's health command here (the image's own interval is 30 s). */
    static final Duration HEALTH_INTERVAL = Duration.ofSeconds(1);
    static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);

    private static Engine engine;
    private static Deployment deployment;
    private static String controlNetwork;
    private static String volume;
    private static GenericContainer<?> agent;
    private static DogamaClient client;

    @BeforeAll
    static void start() {
        engine = Engine.get();
        AgentImage.Built image = AgentImage.get();
        deployment = Deployment.create("dogama-e2e");
        controlNetwork = deployment.network(deployment.name + "-control");
        volume = deployment.name + "-data";
        agent = agentContainer(image.tag(), deployment.secret, volume)
                .waitingFor(Wait.forHealthcheck().withStartupTimeout(START_TIMEOUT));
        agent.start();
        client = Agents.client(ip(agent.getContainerId()), Deployment.PORT, deployment.secretLine);
    }

    /** The agent's container exactly as deploy/compose.yaml describes it, with the given secret file. */
    static GenericContainer<?> agentContainer(String image, Path secret, String dataVolume) {
        return new GenericContainer<>(DockerImageName.parse(image))
                .withImagePullPolicy(name -> false)
                .withNetworkMode(controlNetwork)
                .withCreateContainerCmdModifier(cmd -> harden(cmd, secret, dataVolume));
    }

    /** Started means: ran and exited (the agent must refuse, not serve). */
    static final class ExitedIsStarted extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient docker, String containerId) {
            return "exited".equals(getCurrentState(docker, containerId).getStatus()) ? StartupStatus.SUCCESSFUL
                    : StartupStatus.NOT_YET_KNOWN;
        }
    }

    private static void harden(CreateContainerCmd cmd, Path secret, String dataVolume) {
        cmd.withUser(Deployment.AGENT_UID + ":" + engine.socketGid);
        // Only the interval: the test command and the rest come from the image.
        cmd.withHealthcheck(new HealthCheck().withInterval(HEALTH_INTERVAL.toNanos()));
        // Binds set here, not with withFileSystemBind: that one first probes file mounting with an
        // alpine container, which would be pulled.
        String socket = engine.socket.toString();
        String instances = deployment.instances.toString();
        List<Bind> binds = List.of(
                new Bind(socket, new Volume(socket), AccessMode.rw),
                new Bind(secret.toString(), new Volume(Deployment.SECRET_TARGET), AccessMode.ro),
                new Bind(deployment.config.toString(), new Volume(Deployment.CONFIG_TARGET), AccessMode.ro),
                new Bind(instances, new Volume(instances), AccessMode.ro),
                new Bind(dataVolume, new Volume(Deployment.DATA_TARGET), AccessMode.rw));
        cmd.getHostConfig().withBinds(binds).withReadonlyRootfs(true).withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges:true")).withPidsLimit(PIDS_LIMIT)
                .withMemory(MEMORY_BYTES).withMemorySwap(MEMORY_BYTES);
    }

    static String ip(String containerId) {
        return engine.client.inspectContainerCmd(containerId).exec().getNetworkSettings().getNetworks()
                .get(controlNetwork).getIpAddress();
    }

    @AfterAll
    static void stop() {
        try {
            if (client != null) {
                // Instances through the agent first: that is the only way that ends a registration.
                for (InstanceSummary s : client.list()) {
                    client.delete(s.instanceId());
                }
                client.close();
            }
        } finally {
            if (agent != null) {
                agent.stop();
            }
            DockerClient docker = engine.client;
            for (Container c : docker.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of("io.dogama.instance-id", "e2e-demo")).exec()) {
                docker.removeContainerCmd(c.getId()).withForce(true).exec();
            }
            for (String v : List.of(volume, volume + "-refused")) {
                try {
                    docker.removeVolumeCmd(v).exec();
                } catch (NotFoundException e) {
                    // never created
                }
            }
            if (deployment != null) {
                deployment.close();
            }
        }
    }

    @Test
    void answersSignedRequestsOnly() {
        assertEquals(new Health("ok"), client.health());

        Agents.Unsigned unsigned = Agents.unsigned(ip(agent.getContainerId()), Deployment.PORT, "/v1/health");
        assertEquals(401, unsigned.status(), unsigned.body());
        assertEquals("unauthenticated", unsigned.json().get("code"));

        try (DogamaClient other = Agents.client(ip(agent.getContainerId()), Deployment.PORT, Agents.randomSecretLine())) {
            DogamaProblemException wrong = assertThrows(DogamaProblemException.class, other::health);
            assertEquals(ProblemCode.UNAUTHENTICATED, wrong.code());
        }
    }

    @Test
    void dockerHealthCheckSignsWithTheMountedSecret() {
        InspectContainerResponse c = engine.client.inspectContainerCmd(agent.getContainerId()).exec();
        assertEquals("healthy", c.getState().getHealth().getStatus());
        List<HealthStateLog> log = c.getState().getHealth().getLog();
        HealthStateLog last = log.getLast();
        assertEquals(0L, last.getExitCodeLong(), last.getOutput());
        assertEquals("health: 200", last.getOutput().strip());
        // The image's own test command, with only the interval changed here.
        List<String> test = c.getConfig().getHealthcheck().getTest();
        assertEquals(List.of("CMD", "/opt/dogama-agent/bin/java"), test.subList(0, 2));
        assertEquals("health", test.getLast());
    }

    @Test
    void createsAndRunsTheDemoInstance() throws Exception {
        Path data = deployment.instanceData("e2e-demo", "hello from the e2e test\n");
        String plan = """
                {"instanceId":"e2e-demo","templateId":"demo-http","templateVersion":"1.0.0","image":"dogama/demo-http:1",\
                "capAdd":[],"env":{"GREETING":"hello"},\
                "mounts":[{"source":"%s","target":"/data","readOnly":false}],\
                "ports":[{"name":"http","containerPort":8080,"protocol":"tcp","hostIp":"127.0.0.1","hostPort":28080}],\
                "resources":{"memoryBytes":33554432,"nanoCpus":500000000,"pidsLimit":64},\
                "user":"65534:65534","labels":{"owner":"deploy-tests"},"networks":["%s"]}"""
                .formatted(data, deployment.appsNetwork);

        Instance created = client.create(Plan.fromJson(plan));
        assertEquals(InstanceState.CREATED, created.state());

        Instance started = client.start("e2e-demo");
        assertEquals(InstanceState.RUNNING, started.state());
        assertEquals("running", started.container().status());

        // The container the agent made: on the approved network, serving the bind-mounted data.
        List<Container> containers = engine.client.listContainersCmd()
                .withLabelFilter(Map.of("io.dogama.instance-id", "e2e-demo")).exec();
        assertEquals(1, containers.size(), "containers labelled e2e-demo: " + containers);
        InspectContainerResponse demo = engine.client.inspectContainerCmd(containers.getFirst().getId()).exec();
        assertEquals("/dogama-e2e-demo", demo.getName());
        assertEquals(List.of(deployment.appsNetwork), List.copyOf(demo.getNetworkSettings().getNetworks().keySet()));
        String demoIp = demo.getNetworkSettings().getNetworks().get(deployment.appsNetwork).getIpAddress();
        assertEquals("hello from the e2e test\n", fetchWhenUp("http://" + demoIp + ":8080/index.html"));

        assertEquals(33554432L, client.stats("e2e-demo").memoryLimitBytes());

        Instance stopped = client.stop("e2e-demo", Duration.ofSeconds(1));
        assertEquals("exited", stopped.container().status());

        client.delete("e2e-demo");
        assertEquals(List.of(), client.list());
        assertEquals(List.of(), engine.client.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of("io.dogama.instance-id", "e2e-demo")).exec());
        assertTrue(Files.exists(data.resolve("index.html")), "delete must keep the host data");
    }

    /** busybox httpd needs a moment after the start answered; bounded. */
    private static String fetchWhenUp(String url) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + STEP_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), r.body());
                return r.body();
            } catch (IOException e) {
                last = e;
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new AssertionError(url + " did not answer within " + STEP_TIMEOUT + ": " + last);
    }

    @Test
    void ownContainerIsHardened() {
        InspectContainerResponse c = engine.client.inspectContainerCmd(agent.getContainerId()).exec();
        Hardening.assertHardened(c, new Hardening.Expected(Deployment.AGENT_UID + ":" + engine.socketGid, PIDS_LIMIT,
                controlNetwork, engine.socket, deployment.instances));
        assertEquals(MEMORY_BYTES, c.getHostConfig().getMemory());
    }

    @Test
    void refusesToStartWithAWorldReadableSecret() throws IOException {
        Path loose = deployment.dir.resolve("world-readable-secret");
        Files.writeString(loose, deployment.secretLine + "\n");
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rw-r--r--"));
        // No health wait: it must exit on its own, with the agent's "refused to start" status.
        try (GenericContainer<?> refused = agentContainer(AgentImage.get().tag(), loose, volume + "-refused")
                .withStartupCheckStrategy(new ExitedIsStarted().withTimeout(START_TIMEOUT))) {
            refused.start();
            String logs = refused.getLogs();
            Long exit = engine.client.inspectContainerCmd(refused.getContainerId()).exec().getState().getExitCodeLong();
            assertEquals(78L, exit, logs); // Launcher.REFUSED
            assertTrue(logs.contains("world-readable"), logs);
            assertTrue(Stream.of(deployment.secretLine).noneMatch(logs::contains), "the secret appears in the log");
        }
    }
}
