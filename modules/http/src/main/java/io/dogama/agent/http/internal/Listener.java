package io.dogama.agent.http.internal;

import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
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
     * metadata.)
     */
    private static void noDiscovery() {
        GlobalServiceRegistry.registry(() -> ServiceRegistryManager.create(ServiceRegistryConfig.builder()
                .discoverServices(false)
                .discoverServicesFromServiceLoader(false)
                .build()).registry());
    }

    /**
     * @param authenticator the request authenticator
     * @param limits        listener and limits
     * @return a listener, not started, with no operations bound yet
     */
    public static Listener create(Authenticator authenticator, HttpLimits limits) {
        ConnectionWatchdog watchdog = new ConnectionWatchdog(limits.requestTimeout());
        AtomicReference<AgentOperations> operations = new AtomicReference<>();
        Dispatcher dispatcher = new Dispatcher(() -> {
            AgentOperations ops = operations.get();
            if (ops == null) {
                // Unreachable through AgentServer, which binds before it starts the server.
                throw new IllegalStateException("http: a request arrived before operations were bound");
            }
            return ops;
        });
        RequestGate gate = new RequestGate(authenticator, dispatcher, limits.maxBodyBytes(), watchdog);
        DirectHandlers.Builder direct = DirectHandlers.builder();
        ProblemDirectHandler problems = new ProblemDirectHandler();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            direct.addHandler(type, problems);
        }
        noDiscovery();
        Duration helidonIdle = limits.requestTimeout().multipliedBy(HELIDON_IDLE_MULTIPLE);
        WebServer server = WebServer.builder()
                .shutdownHook(false)
                .featuresDiscoverServices(false)
                .protocolsDiscoverServices(false)
                .addProtocol(Http1Config.builder()
                        .maxPrologueLength(limits.maxRequestLineBytes())
                        .maxHeadersSize(limits.maxHeaderBytes())
                        .validatePath(true)
                        .validatePrologue(true)
                        .validateRequestHeaders(true)
                        .continueImmediately(false)
                        .build())
                .host(limits.host())
                .port(limits.port())
                // The gate enforces the body limit itself so that the answer is problem JSON, and so that
                // a chunked body is measured as it is read; Helidon's own limit is therefore off.
                .maxPayloadSize(-1)
                .connectionOptions(new WatchedSocketOptions(watchdog))
                .maxTcpConnections(limits.maxConnections())
                .maxConcurrentRequests(limits.maxConcurrentRequests())
                .idleConnectionTimeout(helidonIdle)
                .idleConnectionPeriod(limits.requestTimeout())
                .directHandlers(direct.build())
                .routing(routing -> routing.any(gate))
                .build();
        return new Listener(server, watchdog, operations);
    }
}
