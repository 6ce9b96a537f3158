package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerCallObserver;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * HTTP/1.1 exchanges over pooled connections, each bounded by a deadline, a silence timeout, a
 * header budget and the caller's body limit.
 *
 * <p>An exchange asked for on a virtual thread runs on one of this transport's platform threads.
 * junixsocket parks a virtual thread whose read would block and hands the wait to a poll job on a
 * pool of one platform thread per core, and each job holds its thread until its socket is readable:
 * on a 2-core host, two engine calls that take long (a stop waiting out its timeout) held every other
 * engine call made from a virtual thread, every create and start of every instance, until they ended
 * ({@code HostileEngineTest.callsTheEngineHoldsDoNotHoldUpOthersMadeOnVirtualThreads}). A platform
 * thread blocks in its own read instead.
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

    /** How long a platform thread for exchanges is kept without work. */
    private static final long IDLE_THREAD_SECONDS = 30;

    /** The work of one exchange, run on a platform thread. */
    @FunctionalInterface
    private interface Work<T> {
        T run() throws DockerException;
    }

    private final DockerLimits limits;
    private final ConnectionPool pool;
    private final DockerCallObserver observer;
    /**
     * One thread per connection the pool allows: every running exchange holds one, so the threads never
     * outnumber the exchanges that can make progress, and a queued one waits as it would for a connection.
     */
    private final ThreadPoolExecutor exchanges;

    HttpTransport(Path socket, DockerLimits limits) {
        this(socket, limits, DockerCallObserver.NONE);
    }

    HttpTransport(Path socket, DockerLimits limits, DockerCallObserver observer) {
        this.limits = limits;
        this.pool = new ConnectionPool(socket, limits);
        this.observer = observer;
        this.exchanges = new ThreadPoolExecutor(limits.maxConnections(), limits.maxConnections(), IDLE_THREAD_SECONDS,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Thread.ofPlatform().daemon(true).name("dogama-docker-", 0).factory());
        this.exchanges.allowCoreThreadTimeOut(true);
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
            return offVirtualThread(deadline, () -> send(req, deadline, silence, (s, body) -> {
                status[0] = s;
                return handler.handle(s, body);
            }));
        } finally {
            String outcome = status[0] < 0 ? "failed" : status[0] < 400 ? "ok" : "error";
            try {
                observer.observed(req.operation(), outcome, System.nanoTime() - start);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "docker: the call observer failed");
            }
        }
    }

    /**
     * Runs {@code work} on one of {@link #exchanges}' threads when called on a virtual thread (see the
     * class comment), else on the caller's own. Waiting for a free thread is bounded as waiting for a
     * free connection is; the work itself is bounded by the deadline, which every read it makes obeys.
     */
    private <T> T offVirtualThread(Deadline deadline, Work<T> work) throws DockerException {
        if (!Thread.currentThread().isVirtual()) {
            return work.run();
        }
        CompletableFuture<Void> started = new CompletableFuture<>();
        Future<T> done;
        try {
            done = exchanges.submit(() -> {
                started.complete(null);
                return work.run();
            });
        } catch (RejectedExecutionException e) {
            throw new DockerUnavailableException("the engine client is closed");
        }
        try {
            try {
                started.get(Math.min(limits.connectTimeout().toNanos(), Math.max(0, deadline.remainingNanos())),
                        TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                if (done.cancel(false)) {
                    throw new DockerTimeoutException("no free engine connection within the connect timeout");
                }
                // It started just now: wait for it as for any other.
            }
            return done.get();
        } catch (InterruptedException e) {
            done.cancel(true);
            Thread.currentThread().interrupt();
            throw new DockerUnavailableException("interrupted while waiting for the engine", e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case DockerException de -> throw de;
                case RuntimeException re -> throw re;
                case Error er -> throw er;
                default -> throw new DockerUnavailableException("an engine call failed", e.getCause());
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
                    c.write(bytes, deadline, silence);
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
        // Running exchanges end on their own: the closed pool refuses them further connections.
        exchanges.shutdown();
        pool.close();
    }
}
