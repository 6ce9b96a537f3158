package io.dogama.agent.deploy;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The host side of one agent deployment, as an operator prepares it: the secret file (mode 0440,
 * group of the Docker socket: the agent's primary group), the administrator config made from
 * deploy/config.example.json, the allowed root, and the approved instance network (internal), all
 * with names of their own. {@link #close()} removes what it created.
 */
final class Deployment implements AutoCloseable {
    static final String SECRET_TARGET = "/run/secrets/dogama-agent-hmac";
    static final String CONFIG_TARGET = "/etc/dogama-agent/config.json";
    static final String DATA_TARGET = "/var/lib/dogama-agent";
    static final int AGENT_UID = 10001;
    static final int PORT = 8480;

    final String name;
    final Path dir;
    final Path secret;
    final Path config;
    final Path instances;
    final String appsNetwork;
    final String secretLine;
    private final DockerClient docker;
    private final List<String> networks = new ArrayList<>();

    private Deployment(String name, Path dir, DockerClient docker) throws IOException {
        this.name = name;
        this.dir = dir;
        this.docker = docker;
        Engine engine = Engine.get();
        secretLine = Agents.randomSecretLine();
        secret = dir.resolve("dogama-agent-hmac");
        Files.writeString(secret, secretLine + "\n", StandardCharsets.US_ASCII);
        Files.setAttribute(secret, "unix:gid", engine.socketGid);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("r--r-----"));
        instances = Files.createDirectories(dir.resolve("instances"));
        appsNetwork = name + "-apps";
        config = dir.resolve("agent.json");
        String example = Files.readString(AgentImage.root().resolve("deploy/config.example.json"));
        String json = example.replace("\"/var/run/docker.sock\"", quote(engine.socket.toString()))
                .replace("\"/srv/dogama/instances\"", quote(instances.toString()))
                .replace("\"dogama-games\"", quote(appsNetwork))
                // Instances publish on the loopback only here (the example approves 0.0.0.0).
                .replace("\"hostIps\": [\"0.0.0.0\"]", "\"hostIps\": [\"127.0.0.1\"]");
        if (json.contains("/srv/dogama") || json.contains("\"dogama-games\"") || !json.contains("127.0.0.1")) {
            throw new AssertionError("deploy/config.example.json no longer has the expected defaults:\n" + example);
        }
        Files.writeString(config, json);
        Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(instances, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        network(appsNetwork);
    }

    /** @param prefix names the directory, networks and volumes, e.g. {@code dogama-e2e} */
    static Deployment create(String prefix) {
        String name = prefix + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        try {
            return new Deployment(name, Files.createTempDirectory(Path.of("/tmp"), name + "-"), Engine.get().client);
        } catch (IOException e) {
            throw new AssertionError("cannot prepare the deployment files: " + e, e);
        }
    }

    /** Creates an internal network that {@link #close()} removes. */
    String network(String networkName) {
        docker.createNetworkCmd().withName(networkName).withDriver("bridge").withInternal(true)
                .withLabels(Map.of("io.dogama.test", "deploy-tests")).exec();
        networks.add(networkName);
        return networkName;
    }

    /** An instance data directory below the allowed root, with one file the demo image serves. */
    Path instanceData(String instanceId, String indexHtml) throws IOException {
        Path data = Files.createDirectories(instances.resolve(instanceId).resolve("data"));
        Files.writeString(data.resolve("index.html"), indexHtml);
        for (Path p : List.of(instances.resolve(instanceId), data)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(data.resolve("index.html"), PosixFilePermissions.fromString("rw-r--r--"));
        return data;
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public void close() {
        for (String n : networks) {
            try {
                docker.removeNetworkCmd(n).exec();
            } catch (NotFoundException e) {
                // already gone
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot remove " + dir + ": " + e, e);
        }
    }
}
