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
     * Closes one evictable connection: the oldest of the client address (an IPv6 client's /64) that holds the most
     * evictable connections, if it holds at least a quarter of the slots; else the oldest of all. With the oldest of
     * all alone, one address that reopens every connection it loses would, within as many accepts as it holds
     * slots, make every other client's connection the oldest, and reset a signed request still on its way in
     * (session 38's review). The quarter keeps an attacker spread over many addresses from turning the rule against
     * a control plane with two requests in flight; ties go to the address whose oldest connection is oldest.
     */
    private void evictOldestUntrusted(SocketChannel accepted) {
        Map<Object, Client> clients = new HashMap<>();
        Map.Entry<Key, Tracked> oldestOfAll = null;
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
                clients.computeIfAbsent(clientOf(e.getKey()), c -> new Client()).add(e);
                if (oldestOfAll == null || older(e, oldestOfAll)) {
                    oldestOfAll = e;
                }
            }
        }
        if (open < maxConnections || oldestOfAll == null) {
            return;
        }
        Client busiest = null;
        for (Client c : clients.values()) {
            if (busiest == null || c.count > busiest.count
                    || c.count == busiest.count && older(c.oldest, busiest.oldest)) {
                busiest = c;
            }
        }
        Map.Entry<Key, Tracked> victim = busiest != null && busiest.count >= Math.max(2, maxConnections / 4)
                ? busiest.oldest : oldestOfAll;
        connections.remove(victim.getKey());
        try {
            victim.getValue().channel.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "http: evicting a connection failed");
        }
        LOG.log(System.Logger.Level.DEBUG, "http: all connection slots taken; closed an unauthenticated one");
    }

    /** One client's evictable connections: how many, and the oldest. */
    private static final class Client {
        int count;
        Map.Entry<Key, Tracked> oldest;

        void add(Map.Entry<Key, Tracked> e) {
            count++;
            if (oldest == null || older(e, oldest)) {
                oldest = e;
            }
        }
    }

    private static boolean older(Map.Entry<Key, Tracked> a, Map.Entry<Key, Tracked> b) {
        return a.getValue().acceptedAt - b.getValue().acceptedAt < 0;
    }

    /**
     * A connection whose request is read and being worked on is not evicted either: a signed request waits there
     * for its nonce's force before it is trusted, and an unsigned one is answered and ended within moments, so no
     * client can hold a slot this way.
     */
    private static boolean evictable(Tracked t, SocketChannel accepted) {
        return t.channel.isOpen() && !t.trusted && t.deadline != NO_DEADLINE && t.channel != accepted;
    }

    /**
     * @return the client: an IPv4 address, an IPv6 address's /64 (one host commonly holds a whole /64), or the
     *     whole address if it is not an IP one
     */
    static Object clientOf(Key key) {
        if (key.remote() instanceof InetSocketAddress a && a.getAddress() != null) {
            byte[] ip = a.getAddress().getAddress();
            return ip.length == 16 ? java.nio.ByteBuffer.wrap(ip, 0, 8).getLong() : a.getAddress();
        }
        return key.remote();
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
