package io.dogama.agent.http;

import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.http.internal.Listener;
import io.dogama.agent.lifecycle.AgentOperations;
import io.helidon.webserver.WebServer;
import java.util.Objects;

/**
 * The agent's HTTP listener (SPEC sections 2 to 4) on the Helidon 4 SE web server: one handler for
 * every method and path applies, in order, the body limit, the query ban and authentication, and
 * only then routes the raw path through the one route table to {@link AgentOperations}. Every error
 * is RFC 9457 problem JSON with a stable code.
 */
public final class AgentServer {
    private static final System.Logger LOG = System.getLogger(AgentServer.class.getName());

    private final Listener listener;
    private final WebServer server;
    private final HttpLimits limits;

    private AgentServer(Listener listener, HttpLimits limits) {
        this.listener = listener;
        this.server = listener.server();
        this.limits = limits;
    }

    /**
     * Builds the server without binding it: the web server's own start-up work can then overlap with
     * the agent's other parts, and {@link #start(AgentOperations)} only binds and serves.
     *
     * @param authenticator request authentication and replay defense
     * @param limits        listener address and limits
     * @param accounting    the audit log and metrics every request is accounted in
     * @return a server, not yet listening
     */
    public static AgentServer create(Authenticator authenticator, HttpLimits limits, Accounting accounting) {
        Objects.requireNonNull(authenticator, "authenticator");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(accounting, "accounting");
        return new AgentServer(Listener.create(authenticator, limits, accounting.audit(), accounting.metrics()), limits);
    }

    /**
     * Makes, ahead of {@link #create}, what building any server needs and no setting changes (Helidon's global service
     * registry, without discovery, and its empty config); a start calls it on a thread of its own while it reads its
     * config. Idempotent and thread-safe; {@link #create} does it too when it was not done.
     */
    public static void prepare() {
        Listener.prepare();
    }

    /**
     * Binds and starts listening; every request is then dispatched to {@code ops}. Once per server.
     *
     * @param ops what requests may do
     * @return the bound port (the ephemeral one when the limits say 0)
     * @throws HttpException if the address cannot be bound or the server does not start; nothing is left
     *                       listening then
     * @throws IllegalStateException if the server was started before
     */
    public int start(AgentOperations ops) throws HttpException {
        listener.bind(ops);
        try {
            server.start();
        } catch (RuntimeException e) {
            stopQuietly();
            throw new HttpException("cannot listen on " + limits.host() + ":" + limits.port(), e);
        }
        if (!server.isRunning()) {
            throw new HttpException("cannot listen on " + limits.host() + ":" + limits.port(), null);
        }
        LOG.log(System.Logger.Level.INFO, "http: listening on {0}:{1}", limits.host(), String.valueOf(server.port()));
        return server.port();
    }

    /** @return the bound port, or -1 when not listening */
    public int port() {
        return server.isRunning() ? server.port() : -1;
    }

    /** Stops listening and closes every connection; requests in progress get the shutdown grace period. */
    public void stop() {
        listener.stop();
    }

    private void stopQuietly() {
        try {
            listener.stop();
        } catch (RuntimeException suppressed) {
            LOG.log(System.Logger.Level.DEBUG, "http: stop after a failed start also failed", suppressed);
        }
    }
}
