package io.dogama.agent.deploy;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;

/**
 * The Docker engine the tests run against: {@code DOCKER_HOST} (a {@code unix://} socket; the agent
 * needs the socket itself, mounted at the same path), else {@code /var/run/docker.sock}. No engine
 * is a test failure with a clear message, never a skip.
 */
final class Engine {
    static final String DEFAULT_HOST = "unix:///var/run/docker.sock";
    private static Engine instance;

    final String dockerHost;
    final Path socket;
    final int socketGid;
    final DockerClient client;

    private Engine(String dockerHost, Path socket, int socketGid, DockerClient client) {
        this.dockerHost = dockerHost;
        this.socket = socket;
        this.socketGid = socketGid;
        this.client = client;
    }

    static synchronized Engine get() {
        if (instance == null) {
            instance = connect();
        }
        return instance;
    }

    private static Engine connect() {
        String host = System.getenv().getOrDefault("DOCKER_HOST", DEFAULT_HOST);
        if (!host.startsWith("unix://")) {
            throw new AssertionError("DOCKER_HOST must be a unix:// socket for these tests (the agent mounts it), not "
                    + host);
        }
        Path socket = Path.of(host.substring("unix://".length()));
        if (!Files.exists(socket)) {
            throw new AssertionError("no Docker engine: " + socket + " does not exist (DOCKER_HOST=" + host
                    + "); start one with scripts/dockerd");
        }
        int gid;
        try {
            gid = (Integer) Files.getAttribute(socket, "unix:gid");
        } catch (IOException e) {
            throw new AssertionError("cannot read the group of " + socket + ": " + e, e);
        }
        DockerClient client;
        try {
            client = DockerClientFactory.instance().client();
            client.pingCmd().exec();
        } catch (RuntimeException e) {
            throw new AssertionError("no Docker engine answers at " + host + " (start one with scripts/dockerd): " + e, e);
        }
        return new Engine(host, socket, gid, client);
    }
}
