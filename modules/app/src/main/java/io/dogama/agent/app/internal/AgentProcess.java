package io.dogama.agent.app.internal;

import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.SecretFile;
import io.dogama.agent.auth.Secrets;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.http.AgentServer;
import io.dogama.agent.http.HttpException;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.lifecycle.LifecycleException;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One running agent: every part opened in dependency order, and closed in reverse order on
 * {@link #close()} (also when a later part fails to start, so nothing is left half-open).
 */
final class AgentProcess implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentProcess.class.getName());

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private final AgentServer server;
    private final int port;

    private AgentProcess(AdminConfig config, Clock clock) throws StartupException {
        try {
            Secrets secrets = SecretFile.load(config.secretFile());
            Catalog catalog = Catalog.embedded();
            DockerEngine docker = remember(DockerEngine.connect(config.dockerSocket()));
            Registry registry = remember(Registry.open(config.dataDir(), config.limits().instances()));
            PlanPolicy policy = PlanPolicy.create(config, catalog);
            AgentOperations ops = Lifecycle.start(docker, registry, policy);
            NonceStore nonces = remember(NonceStore.persistent(config.dataDir(), NonceStore.DEFAULT_CAPACITY, clock));
            Authenticator authenticator = Authenticator.create(secrets, clock, nonces);
            server = AgentServer.create(ops, authenticator,
                    HttpLimits.defaults(config.listen().host(), config.listen().port()));
            port = server.start();
            opened.push(server::stop);
            LOG.log(System.Logger.Level.INFO, "app: agent started: {0} template(s), {1} secret(s), {2}",
                    catalog.templates().size(), secrets.count(), Summary.of(config));
        } catch (AuthException | PolicyException | DockerException | RegistryException | LifecycleException
                | HttpException e) {
            close();
            throw new StartupException(e.getMessage(), e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Reads the administrator config and starts the agent.
     *
     * @param configFile the config path
     * @param clock      the agent's clock
     * @return the running agent
     * @throws StartupException with a secret-free reason if anything refuses to start
     */
    static AgentProcess start(Path configFile, Clock clock) throws StartupException {
        return new AgentProcess(readConfig(configFile), clock);
    }

    static AdminConfig readConfig(Path configFile) throws StartupException {
        byte[] json;
        try {
            if (Files.size(configFile) > AdminConfig.MAX_CONFIG_BYTES) {
                throw new StartupException("config file is larger than " + AdminConfig.MAX_CONFIG_BYTES
                        + " bytes", null);
            }
            json = Files.readAllBytes(configFile);
        } catch (IOException e) {
            throw new StartupException("cannot read config file " + configFile, e);
        }
        try {
            return AdminConfig.parse(json);
        } catch (PolicyException e) {
            throw new StartupException(e.getMessage(), e);
        }
    }

    int port() {
        return port;
    }

    private <T extends AutoCloseable> T remember(T part) {
        opened.push(part);
        return part;
    }

    @Override
    public void close() {
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "app: close failed: " + e.getClass().getSimpleName());
            }
        }
    }

    /** The config as logged at start: no secret, only shapes and paths the operator chose. */
    private static final class Summary {
        private Summary() {
        }

        static String of(AdminConfig c) {
            return "listen=" + c.listen().host() + ":" + c.listen().port() + " dataDir=" + c.dataDir()
                    + " roots=" + c.allowedRoots().keySet() + " networks=" + c.networks() + " hostIps=" + c.hostIps()
                    + " hostPorts=" + c.hostPorts().min() + "-" + c.hostPorts().max() + " maxInstances="
                    + c.limits().instances() + " allowRootUser=" + c.allowRootUser();
        }
    }
}
