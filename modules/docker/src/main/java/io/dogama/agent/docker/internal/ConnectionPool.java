package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A few keep-alive connections. At most {@link DockerLimits#maxConnections()} are in use at once,
 * at most {@link DockerLimits#maxIdleConnections()} wait idle; a connection whose exchange did not
 * end cleanly is closed, never reused.
 */
final class ConnectionPool implements AutoCloseable {
    /** An idle connection older than this is closed rather than reused: the engine may be gone. */
    static final Duration IDLE_EXPIRY = Duration.ofSeconds(30);

    private final Path socket;
    private final DockerLimits limits;
    private final Semaphore permits;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private boolean closed;
    private int opened;
    private int inUse;
    private int peakInUse;

    ConnectionPool(Path socket, DockerLimits limits) {
        this.socket = socket;
        this.limits = limits;
        this.permits = new Semaphore(limits.maxConnections(), true);
    }

    /**
     * @return an idle connection (most recently used first) or a new one
     * @throws DockerTimeoutException     if no connection frees up within the connect timeout
     * @throws DockerUnavailableException if the pool is closed or the socket refuses
     */
    Connection acquire(Deadline deadline) throws DockerException {
        long waitNanos = Math.min(limits.connectTimeout().toNanos(), Math.max(0, deadline.remainingNanos()));
        try {
            if (!permits.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
                throw new DockerTimeoutException("no free engine connection within the connect timeout");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DockerUnavailableException("interrupted while waiting for an engine connection", e);
        }
        try {
            List<Connection> stale = new ArrayList<>(0);
            Connection c = null;
            synchronized (this) {
                if (closed) {
                    throw new DockerUnavailableException("the engine client is closed");
                }
                while (c == null && !idle.isEmpty()) {
                    Connection candidate = idle.pollFirst();
                    if (candidate.idleNanos() > IDLE_EXPIRY.toNanos() || candidate.hasUnreadBytes()) {
                        stale.add(candidate);
                    } else {
                        c = candidate;
                    }
                }
            }
            stale.forEach(Connection::close);
            if (c == null) {
                Duration connect = Duration.ofNanos(
                        Math.max(1_000_000, Math.min(limits.connectTimeout().toNanos(), deadline.remainingNanos())));
                c = Connection.open(socket, connect);
            }
            synchronized (this) {
                if (!c.reused()) {
                    opened++;
                }
                inUse++;
                peakInUse = Math.max(peakInUse, inUse);
            }
            return c;
        } catch (DockerException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    /** Returns a connection: kept idle only if its exchange ended cleanly and there is room. */
    void release(Connection c, boolean reusable) {
        boolean keep;
        synchronized (this) {
            inUse--;
            keep = reusable && !closed && idle.size() < limits.maxIdleConnections();
            if (keep) {
                c.markIdle();
                idle.addFirst(c);
            }
        }
        if (!keep) {
            c.close();
        }
        permits.release();
    }

    /** @return connections opened so far (for tests of reuse) */
    synchronized int opened() {
        return opened;
    }

    /** @return most connections in use at once so far */
    synchronized int peakInUse() {
        return peakInUse;
    }

    /** @return idle connections now */
    synchronized int idleCount() {
        return idle.size();
    }

    @Override
    public void close() {
        List<Connection> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(idle);
            idle.clear();
        }
        all.forEach(Connection::close);
    }
}
