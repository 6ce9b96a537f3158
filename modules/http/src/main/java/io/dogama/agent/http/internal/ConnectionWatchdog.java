package io.dogama.agent.http.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections whose client is too slow. Helidon 4.5 puts no read timeout on accepted
 * connections (its {@code readTimeout} is for clients, and its idle sweep ignores a connection
 * whose first request line is still incomplete), so a client could hold a connection slot forever
 * by sending nothing, or one byte at a time.
 *
 * <p>Each connection gets a deadline: from its accept, and again from the end of each response,
 * the client has {@code timeout} to deliver its complete next request, line, headers and body. While
 * the agent works on a request (after the body is read, until its answer is ready) there is no
 * deadline, so a slow Docker operation is never cut off; from then on the client has {@code timeout} to
 * take the answer. A sweep every quarter of the timeout closes
 * the channels past their deadline; Helidon then ends the connection and frees its slot.
 *
 * <p>Connection slots are kept for clients that authenticate. A connection is <em>trusted</em> once a
 * request on it passed authentication. When an accepted connection takes the last slot, the oldest
 * untrusted connection is closed, so that the next client can always connect: unauthenticated clients
 * that hold sockets, trickle bodies or send headers slowly cannot keep the control plane out, and a
 * fresh connection (which sends its request at once) is the last to go. Trusted connections are never
 * evicted, nor is one whose complete request the agent is working on (a signed first request is trusted
 * only once its nonce is on disk); they end only by their own deadline.
 */
final class ConnectionWatchdog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConnectionWatchdog.class.getName());
    /** Sweeps per timeout: a slow client is cut off at most a quarter of the timeout late. */
    static final int SWEEPS_PER_TIMEOUT = 4;
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final long timeoutNanos;
    private final int maxConnections;
    private final Map<Key, Tracked> connections = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;

    /**
     * A connection by both of its ends. The client's address and port alone are not one connection: a client
     * may bind two sockets to the same address and port and connect them to two addresses of the agent (a
     * listener on a wildcard address), and one would hide the other from the watchdog, which then neither
     * timed it out nor counted it, so that no slot was ever freed again.
     *
     * @param local  the agent's end
     * @param remote the client's end
     */
    record Key(SocketAddress local, SocketAddress remote) {
        // Written out: a record's own equals and hashCode are made at their first call (ObjectMethods' bootstrap),
        // a dozen method-handle classes spun in the interpreter on the first connection's path, about 10 ms of a
        // start (docs/performance.md, session 30). The same values as the record's.
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Objects.equals(local, k.local) && Objects.equals(remote, k.remote);
        }

        @Override
        public int hashCode() {
            return 31 * Objects.hashCode(local) + Objects.hashCode(remote);
        }
    }

    private static final class Tracked {
        final SocketChannel channel;
        final long acceptedAt;
        volatile long deadline;
        /** Set once a request on this connection passed authentication: never evicted then. */
        volatile boolean trusted;
        /** Set once an answer said "Connection: close": nothing more is served on this connection. */
        volatile boolean ended;

        Tracked(SocketChannel channel, long acceptedAt, long deadline) {
            this.channel = channel;
            this.acceptedAt = acceptedAt;
            this.deadline = deadline;
        }
    }

    /**
     * @param timeout        the time a client has to deliver each complete request
     * @param maxConnections the listener's connection slots (Helidon's own limit, at which it stops accepting)
     */
    ConnectionWatchdog(Duration timeout, int maxConnections) {
        this.timeoutNanos = timeout.toNanos();
        this.maxConnections = maxConnections;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon(true)
                .name("dogama-http-watchdog").factory());
        long period = Math.max(1, timeoutNanos / SWEEPS_PER_TIMEOUT);
        sweeper.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    /**
     * A connection was accepted. Helidon accepts one connection at a time, so this never runs concurrently
     * with itself. If this one took the last slot, the oldest untrusted connection is closed to free one.
     */
    void accepted(SocketChannel channel) {
        try {
            SocketAddress local = channel.getLocalAddress();
            SocketAddress remote = channel.getRemoteAddress();
            if (local != null && remote != null) {
                long now = System.nanoTime();
                connections.put(new Key(local, remote), new Tracked(channel, now, now + timeoutNanos));
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "http: accepted connection already gone");
        }
        if (connections.size() >= maxConnections) {
            evictOldestUntrusted(channel);
        }
    }

    /**
     * Closes the oldest connection of the client address that holds the most evictable ones: with the oldest of all,
     * one address that reopens every connection it loses would, within as many accepts as it holds slots, make
     * every other client's connection the oldest, and reset a signed request still on its way in (session 38's
     * review). Clients behind one address share its fate.
     */
    private void evictOldestUntrusted(SocketChannel accepted) {
        Map<Object, Integer> evictableBy = new HashMap<>();
        int open = 0;
        Iterator<Map.Entry<Key, Tracked>> it = connections.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Tracked> e = it.next();
            Tracked t = e.getValue();
            if (!t.channel.isOpen()) {
                it.remove();
                continue;
            }
            open++;
            if (evictable(t, accepted)) {
                evictableBy.merge(clientAddress(e.getKey()), 1, Integer::sum);
            }
        }
        if (open < maxConnections || evictableBy.isEmpty()) {
            return;
        }
        Object busiest = null;
        for (Map.Entry<Object, Integer> e : evictableBy.entrySet()) {
            if (busiest == null || e.getValue() > evictableBy.get(busiest)) {
                busiest = e.getKey();
            }
        }
        Map.Entry<Key, Tracked> oldest = null;
        for (Map.Entry<Key, Tracked> e : connections.entrySet()) {
            Tracked t = e.getValue();
            if (evictable(t, accepted) && clientAddress(e.getKey()).equals(busiest)
                    && (oldest == null || t.acceptedAt - oldest.getValue().acceptedAt < 0)) {
                oldest = e;
            }
        }
        if (oldest == null) {
            return; // gone since the count
        }
        connections.remove(oldest.getKey());
        try {
            oldest.getValue().channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "http: evicting a connection failed");
        }
        LOG.log(System.Logger.Level.DEBUG, "http: all connection slots taken; closed the oldest unauthenticated one "
                + "of the client address holding the most");
    }

    /**
     * A connection whose request is read and being worked on is not evicted either: a signed request waits there
     * for its nonce's force before it is trusted, and an unsigned one is answered and ended within moments, so no
     * client can hold a slot this way.
     */
    private static boolean evictable(Tracked t, SocketChannel accepted) {
        return t.channel.isOpen() && !t.trusted && t.deadline != NO_DEADLINE && t.channel != accepted;
    }

    /** @return the client's host (its IP address without the port), or its whole address if not an IP one */
    private static Object clientAddress(Key key) {
        return key.remote() instanceof InetSocketAddress a && a.getAddress() != null ? a.getAddress() : key.remote();
    }

    /** A request on this connection passed authentication: it keeps its slot. */
    void authenticated(Key connection) {
        Tracked t = connections.get(connection);
        if (t != null) {
            t.trusted = true;
        }
    }

    /** The request on this connection is fully read; the agent is working on it. */
    void working(Key connection) {
        Tracked t = connections.get(connection);
        if (t != null) {
            t.deadline = NO_DEADLINE;
        }
    }

    /**
     * The answer on this connection is being written: the client has the timeout to take it. Without a deadline
     * here a signed client that pipelines requests and never reads blocked the write for good, on a trusted
     * connection that is never evicted: a few such connections held every slot.
     */
    void writing(Key connection) {
        Tracked t = connections.get(connection);
        if (t != null) {
            t.deadline = System.nanoTime() + timeoutNanos;
        }
    }

    /** The response on this connection is written; the next request must arrive in time. */
    void answered(Key connection) {
        Tracked t = connections.get(connection);
        if (t != null) {
            t.deadline = System.nanoTime() + timeoutNanos;
        }
    }

    /**
     * An answer that closes the connection was written: end the connection now. Helidon may already
     * hold further bytes of this connection (for instance the unread body of a refused request);
     * they must never be parsed as requests. The output is shut down so the client sees the answer
     * and then end of stream; {@link #ended} makes the gate refuse anything still buffered.
     */
    void end(Key connection) {
        Tracked t = connections.get(connection);
        if (t != null) {
            t.ended = true;
            try {
                t.channel.shutdownOutput();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "http: ending a connection failed");
            }
        }
    }

    /**
     * @param connection the connection
     * @return true if an earlier answer on this connection ended it; the connection is then closed
     */
    boolean refuseEnded(Key connection) {
        Tracked t = connections.get(connection);
        if (t == null || !t.ended) {
            return false;
        }
        connections.remove(connection);
        try {
            t.channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "http: closing an ended connection failed");
        }
        return true;
    }

    /** @return connections currently tracked, for tests */
    int tracked() {
        return connections.size();
    }

    void sweep() {
        long now = System.nanoTime();
        Iterator<Tracked> it = connections.values().iterator();
        while (it.hasNext()) {
            Tracked t = it.next();
            if (!t.channel.isOpen()) {
                it.remove();
            } else if (t.deadline != NO_DEADLINE && now - t.deadline > 0) {
                it.remove();
                try {
                    t.channel.close();
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "http: closing a slow connection failed");
                }
                LOG.log(System.Logger.Level.DEBUG, "http: closed a connection whose client was too slow");
            }
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
