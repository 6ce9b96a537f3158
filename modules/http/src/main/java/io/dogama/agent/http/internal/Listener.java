package io.dogama.agent.http.internal;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.metrics.Metrics;
import io.helidon.http.DirectHandler;
import io.helidon.service.registry.GlobalServiceRegistry;
import io.helidon.service.registry.ServiceRegistryConfig;
import io.helidon.service.registry.ServiceRegistryManager;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http1.Http1Config;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/** The Helidon web server with its watchdog; the only place that configures Helidon. */
public final class Listener {
    /** Helidon's own idle sweep is a backstop behind the watchdog, at this multiple of the request timeout. */
    private static final int HELIDON_IDLE_MULTIPLE = 2;

    private final WebServer server;
    private final ConnectionWatchdog watchdog;
    private final AtomicReference<AgentOperations> operations;

    private Listener(WebServer server, ConnectionWatchdog watchdog, AtomicReference<AgentOperations> operations) {
        this.server = server;
        this.watchdog = watchdog;
        this.operations = operations;
    }

    /**
     * Binds the operations requests are dispatched to; once, before the server starts: a request can
     * only arrive after {@link WebServer#start()}, which happens after this.
     *
     * @param ops the operations
     * @throws IllegalStateException if operations were bound already
     */
    public void bind(AgentOperations ops) {
        Objects.requireNonNull(ops, "ops");
        if (!operations.compareAndSet(null, ops)) {
            throw new IllegalStateException("http: operations are bound already");
        }
    }

    /** @return the Helidon server */
    public WebServer server() {
        return server;
    }

    /** Stops the server, then the watchdog. */
    public void stop() {
        try {
            server.stop();
        } finally {
            watchdog.close();
        }
    }

    /**
     * Helidon looks up plug-ins (media support, content encodings, features, config sources...) in a
     * global service registry that by default discovers them in every module of the runtime. The agent
     * wants none of them: the server is configured explicitly here, bodies are bytes the gate reads
     * itself, and nothing found on the module path may change how requests are handled. The global
     * registry is therefore made without discovery, once, before the first server is built. (It was
     * also the largest single part of the agent's start: the discovery parses every module's service
     * metadata.) With it, the empty config a listener's builder falls back on when given none: together,
     * about two fifths of building a server, and neither depends on anything but Helidon, so that a start
     * makes them on a thread of its own ({@link #prepare}). Class initialisation makes them exactly once,
     * whichever thread comes first; the other waits for it.
     */
    private static final class Prepared {
        static {
            GlobalServiceRegistry.registry(() -> ServiceRegistryManager.create(ServiceRegistryConfig.builder()
                    .discoverServices(false)
                    .discoverServicesFromServiceLoader(false)
                    .build()).registry());
            io.helidon.config.Config.empty();
        }

        private Prepared() {
        }

        static void ensure() {
            // the static initialiser above is the work
        }
    }

    /** Makes what every server needs and no setting changes ({@link Prepared}); idempotent, thread-safe. */
    public static void prepare() {
        Prepared.ensure();
    }

    /**
     * @param authenticator the request authenticator
     * @param limits        listener and limits
     * @param audit         the audit log, or null for none (tests, the self-check)
     * @param metrics       the metrics registry
     * @return a listener, not started, with no operations bound yet
     */
    public static Listener create(Authenticator authenticator, HttpLimits limits, AuditLog audit, Metrics metrics) {
        ConnectionWatchdog watchdog = new ConnectionWatchdog(limits.requestTimeout(), limits.maxConnections());
        AtomicReference<AgentOperations> operations = new AtomicReference<>();
        Dispatcher dispatcher = new Dispatcher(() -> {
            AgentOperations ops = operations.get();
            if (ops == null) {
                // Unreachable through AgentServer, which binds before it starts the server.
                throw new IllegalStateException("http: a request arrived before operations were bound");
            }
            return ops;
        }, metrics);
        Accountant accountant = new Accountant(audit, metrics);
        RequestGate gate = new RequestGate(authenticator, dispatcher, accountant, limits.maxBodyBytes(),
                limits.maxConcurrentRequests(), limits.maxConcurrentMutations(), watchdog);
        DirectHandlers.Builder direct = DirectHandlers.builder();
        ProblemDirectHandler problems = new ProblemDirectHandler(accountant);
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            direct.addHandler(type, problems);
        }
        prepare();
        Duration helidonIdle = limits.requestTimeout().multipliedBy(HELIDON_IDLE_MULTIPLE);
        WebServer server = WebServer.builder()
                .shutdownHook(false)
                .shutdownGracePeriod(HttpLimits.SHUTDOWN_GRACE)
                .featuresDiscoverServices(false)
                .protocolsDiscoverServices(false)
                // Helidon's HTTP/1 connection, but reading through the strict chunked framing (StrictHttp1Selector);
                // with no protocol added, it is the only one.
                .addConnectionSelector(new StrictHttp1Selector(Http1Config.builder()
                        .maxPrologueLength(limits.maxRequestLineBytes())
                        .maxHeadersSize(limits.maxHeaderBytes())
                        .validatePath(true)
                        .validatePrologue(true)
                        .validateRequestHeaders(true)
                        .continueImmediately(false)
                        .build(), limits.maxBodyBytes()))
                .host(limits.host())
                .port(limits.port())
                // The same limit as the gate's: Helidon then refuses a Content-Length or a chunk size past it
                // before it reads a byte of that body (the gate answers first for a Content-Length).
                .maxPayloadSize(limits.maxBodyBytes())
                .connectionOptions(new WatchedSocketOptions(watchdog))
                .maxTcpConnections(limits.maxConnections())
                // No request permits in Helidon: it takes them once the headers are in, so clients trickling
                // bodies would hold them all. The gate takes its own once a request is authenticated.
                .maxConcurrentRequests(-1)
                .idleConnectionTimeout(helidonIdle)
                .idleConnectionPeriod(limits.requestTimeout())
                .directHandlers(direct.build())
                .routing(routing -> routing.any(gate))
                .build();
        return new Listener(server, watchdog, operations);
    }
}
