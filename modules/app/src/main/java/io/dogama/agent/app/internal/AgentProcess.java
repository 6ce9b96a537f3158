package io.dogama.agent.app.internal;

import io.dogama.agent.audit.AuditException;
import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.core.RegularFiles;
import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.SecretFile;
import io.dogama.agent.auth.Secrets;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.http.Accounting;
import io.dogama.agent.http.AgentServer;
import io.dogama.agent.http.HttpException;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.lifecycle.LifecycleException;
import io.dogama.agent.metrics.Metrics;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One running agent: every part opened in dependency order, and closed in reverse order on
 * {@link #close()} (also when a later part fails to start, so nothing is left half-open).
 */
final class AgentProcess implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AgentProcess.class.getName());

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private final AgentServer server;
    private final InetSocketAddress listenAddress;
    private final int port;
    private final AtomicBoolean stopClaimed = new AtomicBoolean();
    /** The engine's data root, by its name in messages. */
    static final String ENGINE_DATA_ROOT = "Docker engine's data root";

    private AgentProcess(AdminConfig config, MountTable mounts, Clock clock, Timings timings) throws StartupException {
        long t0 = System.nanoTime();
        TrustedPath.requireFile("secret file", config.secretFile());
        // The socket itself is the engine's (group-writable by design); whoever could replace it would be
        // sent every plan, env values included, and could answer in the engine's name.
        TrustedPath.requireSocket("docker socket", config.dockerSocket());
        // Below an allowed root, PathRules checks every folder on the way to a bind source; above it, whoever
        // could swap a folder (or re-point a link the config names it through) could make the engine mount any
        // host path at a container's next start.
        TrustedPath.requireRoots(config);
        if (config.metricsFile().isPresent()) {
            TrustedPath.requireReplacedFile("metrics file", config.metricsFile().get()); // MetricsFile says why
        }
        // Before anything opens a file there (the registry's thread below, the nonce journal).
        DataDirectory.prepare(config.dataDir());
        // Inside the data directory too: a data directory others may read and enter (0755 is only warned about)
        // would let them write into an audit folder that is open to them, or reach it through a link.
        DataDirectory.prepare(DataDirectory.AUDIT, config.audit().dir());
        Metrics metrics = Metrics.create();
        timings.took("paths", t0);
        // The registry open reads its whole file and needs nothing but the config, so it runs on a
        // thread of its own while the rest starts. The thread
        // ends inside this constructor, whatever happens: nothing outlives a failed start.
        FutureTask<Registry> registryOpen = new FutureTask<>(() -> {
            long t = System.nanoTime();
            Registry r = Registry.open(config.dataDir(), config.limits().instances());
            timings.took("registry", t);
            return r;
        });
        Thread opener = Thread.ofPlatform().name("dogama-registry-open").daemon(true).start(registryOpen);
        // The engine's connection likewise: round trips to an engine that shares the host's cores (session 29:
        // 15 to 40 ms off the start, docs/performance.md).
        // Its data root is asked for there too: checked against the allowed roots below.
        AtomicReference<Path> engineDataRoot = new AtomicReference<>();
        FutureTask<DockerEngine> engineConnect = new FutureTask<>(() -> {
            long t = System.nanoTime();
            DockerEngine d = DockerEngine.connect(config.dockerSocket(), DockerLimits.DEFAULTS,
                    Instruments.docker(metrics));
            try {
                engineDataRoot.set(d.info().dataRoot());
            } catch (DockerException | RuntimeException e) {
                d.close();
                throw e;
            }
            timings.took("docker", t);
            return d;
        });
        Thread connector = Thread.ofPlatform().name("dogama-engine-connect").daemon(true).start(engineConnect);
        try {
            long t = System.nanoTime();
            Secrets secrets = SecretFile.load(config.secretFile());
            t = timings.took("secret", t);
            Catalog catalog = Catalog.embedded();
            t = timings.took("catalog", t);
            PlanPolicy policy = PlanPolicy.create(config, catalog);
            t = timings.took("policy", t);
            NonceStore nonces = remember(NonceStore.persistent(config.dataDir(), NonceStore.DEFAULT_CAPACITY, clock));
            t = timings.took("nonces", t);
            Authenticator authenticator = Authenticator.create(secrets, clock, nonces);
            t = timings.took("auth", t);
            // Opened before the server and so closed after it: every request's line is written before it closes.
            AuditLog audit = remember(AuditLog.open(config.audit().dir(), config.audit().maxFileBytes(),
                    config.dataDir().resolve(AuditLog.KEY_FILE_NAME), clock));
            t = timings.took("audit", t);
            // Built (not bound) while the registry opens; its watchdog thread is stopped on any failure.
            server = AgentServer.create(authenticator,
                    HttpLimits.defaults(config.listen().host(), config.listen().port()), Accounting.of(audit, metrics));
            AutoCloseable stopServer = server::stop;
            opened.push(stopServer);
            t = timings.took("http", t);
            DockerEngine docker = remember(await(engineConnect, connector));
            // Every container's file system, volume and state lies below the engine's data root, all owned by
            // root, so the walk to a bind source would pass them: a root holding it would let a plan mount
            // another container's files. The configuration cannot say where it is; the engine does.
            TrustedPath.requireOutsideRoots(config, Map.of(ENGINE_DATA_ROOT, engineDataRoot.get()));
            // The same wherever each is mounted: a root may be a bind of the data root, or of a folder in it.
            mounts.requireApartFromEngine(config.allowedRoots(), engineDataRoot.get(),
                    ENGINE_DATA_ROOT);
            Registry registry = remember(await(registryOpen, opener));
            // Stopped before the registry is closed: the requests in flight at a stop signal end with it open.
            opened.remove(stopServer);
            opened.push(stopServer);
            t = System.nanoTime();
            AgentOperations ops = Lifecycle.start(docker, registry, policy,
                    new ReconcileAudit(audit, Instruments.reconciliations(metrics)));
            t = timings.took("reconcile", t);
            Instruments.register(metrics, new AtomicReference<>(ops), registry, nonces, NonceStore.DEFAULT_CAPACITY, audit);
            if (config.metricsFile().isPresent()) {
                remember(MetricsFile.start(config.metricsFile().get(), metrics));
            }
            port = server.start(ops);
            listenAddress = new InetSocketAddress(InetAddress.ofLiteral(config.listen().host()), port);
            timings.took("listen", t);
            LOG.log(System.Logger.Level.INFO, "app: agent started in {0} ms ({1}): {2} template(s), {3} secret(s), {4}",
                    String.valueOf(timings.sinceStart()), timings, catalog.templates().size(), secrets.count(), Summary.of(config));
            if (config.customLabelPrefixes().isEmpty()) {
                // The refused namespaces are the tools known to act on labels; another one on this host would obey
                // whatever a plan writes in its own.
                LOG.log(System.Logger.Level.WARNING, "app: customLabelPrefixes is not set: a plan may give its "
                        + "container any custom label outside the refused namespaces; on a host where another tool "
                        + "acts on container labels, set it");
            }
        } catch (AuthException | PolicyException | DockerException | RegistryException | LifecycleException
                | HttpException | AuditException e) {
            adoptAfterFailure(engineConnect, connector);
            adoptAfterFailure(registryOpen, opener);
            close();
            // An engine that does not answer (not up yet at boot, restarting) is no fault of the configuration: the
            // supervisor should try again, where a refusal of the configuration or the host must stop it.
            Path socket = config.dockerSocket();
            if (engineDidNotAnswer(e, socket) || engineDidNotAnswer(e.getCause(), socket)) {
                throw StartupException.engineUnavailable(e.getMessage(), e);
            }
            throw new StartupException(e.getMessage(), e);
        } catch (StartupException | RuntimeException | Error e) {
            adoptAfterFailure(engineConnect, connector);
            adoptAfterFailure(registryOpen, opener);
            close();
            throw e;
        }
    }

    /**
     * @return true for the engine client's failures that say only that the engine did not answer: no socket yet, a
     *         socket the agent may use that refused or dropped the connection, a deadline that passed. Not an engine
     *         that speaks no API version of the agent's, a JNI library that did not load, or a socket the agent has
     *         no permission to use (its group is wrong): waiting cures none of those.
     */
    private static boolean engineDidNotAnswer(Throwable e, Path socket) {
        return switch (e) {
            case DockerTimeoutException t -> true;
            case DockerUnavailableException u -> !u.lasting() && (!Files.exists(socket) || Files.isWritable(socket));
            case null, default -> false;
        };
    }

    /** What a start thread made, once it is done; its own failures come out as they are. */
    private static <T> T await(FutureTask<T> open, Thread opener) throws RegistryException, DockerException {
        try {
            return open.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("app: interrupted while the registry opens", e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case RegistryException re -> throw re;
                case DockerException de -> throw de;
                case RuntimeException re -> throw re;
                case Error err -> throw err;
                default -> throw new IllegalStateException("app: a start step failed", e.getCause());
            }
        } finally {
            joinQuietly(opener);
        }
    }

    /**
     * Waits for a start thread that may still be at work (a failure elsewhere came first) and keeps what it opened
     * among what {@link #close} closes, so that its lock, file or connection is released before the process reports
     * the failure.
     */
    private void adoptAfterFailure(FutureTask<? extends AutoCloseable> open, Thread opener) {
        joinQuietly(opener);
        if (open.state() == Future.State.SUCCESS && !opened.contains(open.resultNow())) {
            opened.push(open.resultNow());
        }
    }

    private static void joinQuietly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
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
        long t = System.nanoTime();
        WarmUp warmUp = WarmUp.begin();
        // The JVM is running from it already; but lib/modules is read and native libraries are loaded from it
        // for as long as the agent runs, so a runtime others may change is refused before it loads more (the
        // warm-up's steps that read it wait for this check too).
        Path runtime = Path.of(System.getProperty("java.home"));
        try {
            TrustedPath.requireTree("java runtime", runtime);
        } catch (StartupException | RuntimeException e) {
            warmUp.cancel();
            throw e;
        }
        warmUp.runtimeTrusted();
        Timings timings = new Timings(t);
        t = timings.took("runtime", t);
        TrustedPath.requireFile("config file", configFile);
        AdminConfig config = readConfig(configFile);
        t = timings.took("config", t);
        Map<String, Path> own = new java.util.LinkedHashMap<>();
        own.put("config file", configFile);
        own.put("java runtime", runtime);
        TrustedPath.requireOutsideRoots(config, own);
        // The same, wherever each is mounted (in a container the agent's files are bind mounts of host folders),
        // for every file and folder of the agent's: the configuration's rules compare the others' paths only.
        // Read once: the engine's data root is compared with it too, once the engine has said where that is.
        MountTable mounts = MountTable.read(MountTable.SELF);
        mounts.requireApart(config.allowedRoots(), everythingOwn(config, own));
        timings.took("mounts", t);
        return new AgentProcess(config, mounts, clock, timings);
    }

    /**
     * @param config the configuration
     * @param own    the config file and the runtime, by their names in messages
     * @return those and every other file and folder of the agent's: the secret, the data directory, the audit
     *         folder, the Docker socket and the metrics file (replaced by a rename in its folder, which a container
     *         given that folder as a bind source could race)
     */
    static Map<String, Path> everythingOwn(AdminConfig config, Map<String, Path> own) {
        Map<String, Path> all = new java.util.LinkedHashMap<>(own);
        all.put("secret file", config.secretFile());
        all.put("data directory", config.dataDir());
        all.put("audit folder", config.audit().dir());
        all.put("docker socket", config.dockerSocket());
        config.metricsFile().ifPresent(m -> all.put("metrics file", m));
        return all;
    }

    static AdminConfig readConfig(Path configFile) throws StartupException {
        byte[] json;
        try {
            json = RegularFiles.readAtMost(configFile, AdminConfig.MAX_CONFIG_BYTES);
        } catch (RegularFiles.TooLarge e) {
            throw new StartupException("config file is larger than " + AdminConfig.MAX_CONFIG_BYTES + " bytes", null);
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

    /** @return the address the server was bound to (the configured host, the bound port) */
    InetSocketAddress listenAddress() {
        return listenAddress;
    }

    /** @return false once the HTTP server has stopped */
    boolean listening() {
        return server.port() != -1;
    }

    private <T extends AutoCloseable> T remember(T part) {
        opened.push(part);
        return part;
    }

    /**
     * Claims the stop: the launcher's path and the JVM's shutdown hook may both want it.
     *
     * @return true for the first caller only
     */
    boolean beginClose() {
        return stopClaimed.compareAndSet(false, true);
    }

    /**
     * Closes every part, in reverse order of opening; a second call finds nothing left to close.
     * Synchronized: the launcher's stop and the JVM's shutdown hook may overlap.
     */
    @Override
    public synchronized void close() {
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
                    + c.limits().instances() + " allowRootUser=" + c.allowRootUser() + " audit=" + c.audit().dir()
                    + " metricsFile=" + c.metricsFile().map(Path::toString).orElse("-");
        }
    }
}
