package io.dogama.agent.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import io.dogama.agent.client.DogamaClient;
import io.dogama.agent.client.Health;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * deploy/compose.yaml, unchanged, brought up with Debian's docker-compose against the real engine,
 * its paths and names pointed at a throwaway deployment through the documented variables; then
 * {@code down -v}, which must leave nothing behind.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ComposeTest {
    static final Duration COMPOSE_TIMEOUT = Duration.ofMinutes(3);
    static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
    static final Duration HEALTHY_TIMEOUT = Duration.ofMinutes(2);
    /** compose.yaml's pids_limit. */
    static final long PIDS_LIMIT = 128;

    @Test
    void upIsHealthyHardenedAndDownRemovesEverything() throws Exception {
        Engine engine = Engine.get();
        AgentImage.Built image = AgentImage.get();
        List<String> compose = composeCommand();
        try (Deployment d = Deployment.create("dogama-compose")) {
            String project = d.name;
            String control = d.name + "-control";
            Map<String, String> env = new HashMap<>(Map.of(
                    "DOCKER_HOST", engine.dockerHost,
                    "DOGAMA_AGENT_IMAGE", image.tag(),
                    "DOGAMA_DOCKER_GID", Integer.toString(engine.socketGid),
                    "DOGAMA_DOCKER_SOCKET", engine.socket.toString(),
                    "DOGAMA_AGENT_CONFIG_FILE", d.config.toString(),
                    "DOGAMA_SECRET_FILE", d.secret.toString(),
                    "DOGAMA_INSTANCES_ROOT", d.instances.toString(),
                    "DOGAMA_CONTROL_NETWORK", control,
                    "DOGAMA_HEALTH_INTERVAL", "1s"));
            List<String> base = new ArrayList<>(compose);
            base.addAll(List.of("-f", AgentImage.root().resolve("deploy/compose.yaml").toString(), "-p", project));
            boolean up = false;
            try {
                run(base, env, "up", "-d").requireSuccess();
                up = true;
                Container c = awaitHealthy(engine, project);
                InspectContainerResponse agent = engine.client.inspectContainerCmd(c.getId()).exec();
                Hardening.assertHardened(agent, new Hardening.Expected(Deployment.AGENT_UID + ":" + engine.socketGid,
                        PIDS_LIMIT, control, engine.socket, d.instances));
                assertEquals(256L << 20, agent.getHostConfig().getMemory(), "mem_limit");
                assertEquals(project + "_data", agent.getMounts().stream()
                        .filter(m -> m.getDestination().getPath().equals(Deployment.DATA_TARGET)).findFirst()
                        .orElseThrow().getName());

                String ip = agent.getNetworkSettings().getNetworks().get(control).getIpAddress();
                try (DogamaClient client = Agents.client(ip, Deployment.PORT, d.secretLine)) {
                    assertEquals(new Health("ok"), client.health());
                }
                assertEquals(401, Agents.unsigned(ip, Deployment.PORT, "/v1/health").status());

                run(base, env, "down", "-v").requireSuccess();
                up = false;
                assertEquals(List.of(), engine.client.listContainersCmd().withShowAll(true)
                        .withLabelFilter(Map.of("com.docker.compose.project", project)).exec(), "containers left");
                assertTrue(engine.client.listNetworksCmd().withNameFilter(control).exec().stream()
                        .noneMatch(n -> n.getName().equals(control)), "control network left");
                assertTrue(engine.client.listVolumesCmd().exec().getVolumes().stream()
                        .noneMatch(v -> v.getName().equals(project + "_data")), "data volume left");
            } finally {
                if (up) {
                    run(base, env, "down", "-v");
                }
            }
        }
    }

    @Test
    void refusesToComeUpWithoutTheSocketGroup() {
        List<String> cmd = new ArrayList<>(composeCommand());
        cmd.addAll(List.of("-f", AgentImage.root().resolve("deploy/compose.yaml").toString(), "config"));
        Map<String, String> env = new HashMap<>();
        env.put("DOCKER_HOST", Engine.get().dockerHost);
        env.put("DOGAMA_DOCKER_GID", null);
        Proc.Result r = Proc.run(cmd, env, Path.of("/"), COMPOSE_TIMEOUT);
        assertNotEquals(0, r.exit(), r.stdout());
        assertTrue(r.stderr().contains("DOGAMA_DOCKER_GID"), r.stderr());
    }

    private static Proc.Result run(List<String> base, Map<String, String> env, String... args) {
        List<String> cmd = new ArrayList<>(base);
        cmd.addAll(List.of(args));
        // Run outside the repository so no .env file of a developer's changes what the test sees.
        return Proc.run(cmd, env, Path.of("/"), COMPOSE_TIMEOUT);
    }

    private static Container awaitHealthy(Engine engine, String project) throws InterruptedException {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        String last = "no container";
        while (System.nanoTime() < deadline) {
            List<Container> cs = engine.client.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of("com.docker.compose.project", project, "com.docker.compose.service", "agent"))
                    .exec();
            if (cs.size() == 1) {
                InspectContainerResponse i = engine.client.inspectContainerCmd(cs.getFirst().getId()).exec();
                last = i.getState().getStatus() + "/" + (i.getState().getHealth() == null ? "-" : i.getState().getHealth().getStatus());
                if ("healthy".equals(i.getState().getHealth() == null ? null : i.getState().getHealth().getStatus())) {
                    return cs.getFirst();
                }
                if (!Boolean.TRUE.equals(i.getState().getRunning())) {
                    break;
                }
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError("the compose agent of " + project + " did not become healthy within " + HEALTHY_TIMEOUT
                + " (" + last + ")");
    }

    /** Debian's docker-compose 1.29; installed with apt when missing, as on a fresh CI machine. */
    static synchronized List<String> composeCommand() {
        Path compose = Path.of("/usr/bin/docker-compose");
        if (!compose.toFile().canExecute()) {
            if (!"root".equals(System.getProperty("user.name"))) {
                throw new AssertionError("docker-compose is missing and only root can install it: "
                        + "apt-get install -y --no-install-recommends docker-compose");
            }
            Map<String, String> env = Map.of("DEBIAN_FRONTEND", "noninteractive");
            List<String> install = List.of("apt-get", "install", "-y", "--no-install-recommends", "docker-compose");
            if (Proc.run(install, env, Path.of("/"), INSTALL_TIMEOUT).exit() != 0) {
                Proc.run(List.of("apt-get", "update"), env, Path.of("/"), INSTALL_TIMEOUT).requireSuccess();
                Proc.run(install, env, Path.of("/"), INSTALL_TIMEOUT).requireSuccess();
            }
        }
        return List.of(compose.toString());
    }
}
