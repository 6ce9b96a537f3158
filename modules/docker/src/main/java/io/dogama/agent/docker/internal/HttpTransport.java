package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerCallObserver;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerUnavailableException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;

/**
 * HTTP/1.1 exchanges over pooled connections, each bounded by a deadline, a silence timeout, a
 * header budget and the caller's body limit.
 */
final class HttpTransport implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HttpTransport.class.getName());

    /** Consumes a response body; it must read the body to its end for the connection to be reused. */
    @FunctionalInterface
    interface BodyHandler<T> {
        T handle(int status, BodyReader body) throws DockerException;
    }

    /**
     * A buffered answer.
     *
     * @param status HTTP status
     * @param body   body bytes (empty for none)
     */
    record Response(int status, byte[] body) {
    }

    private final DockerLimits limits;
    private final ConnectionPool pool;
    private final DockerCallObserver observer;

    HttpTransport(Path socket, DockerLimits limits) {
        this(socket, limits, DockerCallObserver.NONE);
    }

    HttpTransport(Path socket, DockerLimits limits, DockerCallObserver observer) {
        this.limits = limits;
        this.pool = new ConnectionPool(socket, limits);
        this.observer = observer;
    }

    DockerLimits limits() {
        return limits;
    }

    ConnectionPool pool() {
        return pool;
    }

    /** Sends a request and buffers the answer, bounded by {@link DockerLimits#maxBodyBytes()}. */
    Response exchange(Request req, Deadline deadline, Duration silence) throws DockerException {
        return exchange(req, deadline, silence, (status, body) -> new Response(status, body.readAll(limits.maxBodyBytes())));
    }

    /**
     * Sends a request and hands the answer to {@code handler}. A reused connection that fails
     * while the request is written, or (for a GET) ends or breaks before any answer byte, is
     * replaced by a fresh one once: the engine closed it while it was idle. A POST or DELETE that
     * may have reached the engine is never sent twice.
     */
    <T> T exchange(Request req, Deadline deadline, Duration silence, BodyHandler<T> handler) throws DockerException {
        // The one place every engine call passes: timed here for the metrics, once per call (retries included).
        long start = System.nanoTime();
        int[] status = {-1};
        try {
            return send(req, deadline, silence, (s, body) -> {
                status[0] = s;
                return handler.handle(s, body);
            });
        } finally {
            String outcome = status[0] < 0 ? "failed" : status[0] < 400 ? "ok" : "error";
            try {
                observer.observed(req.operation(), outcome, System.nanoTime() - start);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "docker: the call observer failed");
            }
        }
    }

    private <T> T send(Request req, Deadline deadline, Duration silence, BodyHandler<T> handler) throws DockerException {
        byte[] bytes = req.encode();
        for (int attempt = 0; ; attempt++) {
            Connection c = pool.acquire(deadline);
            boolean reusable = false;
            try {
                boolean retryable = c.reused() && attempt == 0;
                c.startExchange();
                try {
                    c.write(bytes);
                } catch (IOException e) {
                    if (retryable) {
                        LOG.log(Level.DEBUG, "docker: idle connection was closed; retrying on a new one");
                        continue;
                    }
                    throw new DockerUnavailableException("cannot send a request to the engine", e);
                }
                ResponseHead head;
                try {
                    head = ResponseHead.read(c, limits.maxHeaderBytes(), deadline, silence);
                } catch (DockerUnavailableException e) {
                    if (retryable && req.idempotent() && c.receivedInExchange() == 0) {
                        LOG.log(Level.DEBUG, "docker: idle connection broke unanswered; retrying on a new one");
                        continue;
                    }
                    throw e;
                }
                if (head == null) {
                    if (retryable && req.idempotent()) {
                        LOG.log(Level.DEBUG, "docker: idle connection ended unanswered; retrying on a new one");
                        continue;
                    }
                    throw new DockerUnavailableException("the engine closed the connection without answering");
                }
                BodyReader body = new BodyReader(c, head, deadline, silence, limits.maxHeaderBytes());
                T result = handler.handle(head.status(), body);
                reusable = body.done() && head.keepAlive();
                return result;
            } finally {
                pool.release(c, reusable);
            }
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
