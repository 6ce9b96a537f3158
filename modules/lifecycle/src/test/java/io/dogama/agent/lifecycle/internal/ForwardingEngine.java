package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.EngineVersion;
import io.dogama.agent.docker.ImageInfo;
import io.dogama.agent.docker.NetworkInfo;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The real engine, every call passed on: tests override the calls they watch, hold or lose. */
abstract class ForwardingEngine implements DockerEngine {
    protected final DockerEngine real;

    ForwardingEngine(DockerEngine real) {
        this.real = real;
    }

    @Override
    public void ping() throws DockerException {
        real.ping();
    }

    @Override
    public EngineVersion version() throws DockerException {
        return real.version();
    }

    @Override
    public io.dogama.agent.docker.EngineInfo info() throws DockerException {
        return real.info();
    }

    @Override
    public Optional<ImageInfo> inspectImage(String ref) throws DockerException {
        return real.inspectImage(ref);
    }

    @Override
    public void pullImage(String ref) throws DockerException {
        real.pullImage(ref);
    }

    @Override
    public String createContainer(ContainerSpec spec, List<NetworkInfo> networks) throws DockerException {
        return real.createContainer(spec, networks);
    }

    @Override
    public Optional<ContainerInfo> inspectContainer(String idOrName) throws DockerException {
        return real.inspectContainer(idOrName);
    }

    @Override
    public void startContainer(String id) throws DockerException {
        real.startContainer(id);
    }

    @Override
    public void stopContainer(String id, int timeoutSeconds) throws DockerException {
        real.stopContainer(id, timeoutSeconds);
    }

    @Override
    public void restartContainer(String id, int timeoutSeconds) throws DockerException {
        real.restartContainer(id, timeoutSeconds);
    }

    @Override
    public void renameContainer(String id, String newName) throws DockerException {
        real.renameContainer(id, newName);
    }

    @Override
    public void removeContainer(String id) throws DockerException {
        real.removeContainer(id);
    }

    @Override
    public ContainerStats stats(String id) throws DockerException {
        return real.stats(id);
    }

    @Override
    public List<ContainerSummary> listContainersByLabel(String key, String value) throws DockerException {
        return real.listContainersByLabel(key, value);
    }

    @Override
    public Set<HostPort> publishedHostPorts() throws DockerException {
        return real.publishedHostPorts();
    }

    @Override
    public Optional<NetworkInfo> inspectNetwork(String name) throws DockerException {
        return real.inspectNetwork(name);
    }

    @Override
    public void close() {
        // the harness closes the real engine
    }
}
