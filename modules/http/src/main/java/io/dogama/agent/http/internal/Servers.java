package io.dogama.agent.http.internal;

import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
import io.helidon.http.DirectHandler;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http1.Http1Config;
import java.time.Duration;

/** Builds the Helidon web server from the limits; the only place that configures Helidon. */
public final class Servers {
    /** Idle connections are looked for at this fraction of the idle timeout, so none outlives it by much. */
    private static final int IDLE_CHECKS_PER_TIMEOUT = 4;

    private Servers() {
    }

    /**
     * @param ops           the operations
     * @param authenticator the request authenticator
     * @param limits        listener and limits
     * @return a server, not started
     */
    public static WebServer build(AgentOperations ops, Authenticator authenticator, HttpLimits limits) {
        RequestGate gate = new RequestGate(authenticator, new Dispatcher(ops), limits.maxBodyBytes());
        DirectHandlers.Builder direct = DirectHandlers.builder();
        ProblemDirectHandler problems = new ProblemDirectHandler();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            direct.addHandler(type, problems);
        }
        Duration idlePeriod = limits.idleTimeout().dividedBy(IDLE_CHECKS_PER_TIMEOUT);
        return WebServer.builder()
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
                .connectionOptions(socket -> socket.readTimeout(limits.readTimeout()))
                .maxTcpConnections(limits.maxConnections())
                .maxConcurrentRequests(limits.maxConcurrentRequests())
                .idleConnectionTimeout(limits.idleTimeout())
                .idleConnectionPeriod(idlePeriod.isZero() ? Duration.ofMillis(250) : idlePeriod)
                .directHandlers(direct.build())
                .routing(routing -> routing.any(gate))
                .build();
    }
}
