package io.dogama.agent.app.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/**
 * Watches that the agent's HTTP listener is still there (SPEC section 12: when the listener dies, the
 * process exits non-zero so that the supervisor restarts it). {@link #awaitDeath()} returns when it
 * is gone; a stop in progress ({@link #stopping()}) ends the watch instead.
 *
 * <p>Why from outside: Helidon's accept loop catches every {@code Throwable} (an
 * {@code OutOfMemoryError} included), closes its server socket and ends, while the web server still
 * reports itself running and the JVM lives on, holding the registry's lock: a process that answers
 * nothing and that no supervisor restarts. So the listener is probed as a client sees it: every
 * {@link #PROBE_INTERVAL} a TCP connection to the listening address, closed at once with nothing
 * sent. A refused connection means that nothing listens there any more; a probe that times out (a
 * full accept queue under load) proves nothing and is not counted. The server reporting itself
 * stopped while no stop was asked counts too. This keeps the rule out of the {@code http} module and
 * independent of how Helidon (or a later listener) fails.
 */
final class Lifetime {
    private static final System.Logger LOG = System.getLogger(Lifetime.class.getName());

    /** How often the listener is probed. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);
    /** Longest wait for a probe's connection; longer is inconclusive, not a death. */
    static final Duration PROBE_CONNECT_TIMEOUT = Duration.ofSeconds(1);

    private final CompletableFuture<String> death = new CompletableFuture<>();
    /** Completed when the watch ends, for whatever reason: tests wait on it instead of on time. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** One permit per probe that found the listener there: tests wait on probes instead of on time. */
    private final java.util.concurrent.Semaphore probesPassed = new java.util.concurrent.Semaphore(0);
    private volatile boolean stopping;

    private Lifetime() {
    }

    /**
     * Starts watching the listener on a daemon thread.
     *
     * @param listener  the address the agent listens on (a wildcard address is probed on loopback)
     * @param listening false once the server reports itself stopped
     * @return the watch
     */
    static Lifetime watch(InetSocketAddress listener, BooleanSupplier listening) {
        Objects.requireNonNull(listening, "listening");
        Lifetime life = new Lifetime();
        InetSocketAddress probed = probeAddress(listener);
        Thread.ofPlatform().name("dogama-listener-watch").daemon(true).start(() -> {
            try {
                life.probe(probed, listening);
            } finally {
                life.ended.complete(null);
            }
        });
        return life;
    }

    /** A stop was asked: the listener going away now is expected, the watch ends. */
    void stopping() {
        stopping = true;
    }

    /**
     * Blocks until the listener is gone; never returns while it is there.
     *
     * @return what was found, for the log
     */
    String awaitDeath() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return death.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("app: the listener watch failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return completed when the watch has ended (a death found, a stop asked, or interrupted) */
    CompletableFuture<Void> ended() {
        return ended;
    }

    /**
     * @param n       probes that must find the listener
     * @param timeout longest wait
     * @return true if {@code n} more probes found it within the timeout
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitProbesPassed(int n, Duration timeout) throws InterruptedException {
        return probesPassed.tryAcquire(n, timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    private void probe(InetSocketAddress address, BooleanSupplier listening) {
        while (!stopping) {
            try {
                Thread.sleep(PROBE_INTERVAL);
            } catch (InterruptedException e) {
                return;
            }
            if (stopping) {
                return;
            }
            if (!listening.getAsBoolean()) {
                death.complete("the HTTP server stopped without a stop being asked");
                return;
            }
            try (Socket s = new Socket()) {
                s.connect(address, (int) PROBE_CONNECT_TIMEOUT.toMillis());
                probesPassed.release();
            } catch (ConnectException refused) {
                if (!stopping) {
                    death.complete("the HTTP listener on " + address.getAddress().getHostAddress() + ":"
                            + address.getPort() + " is gone (connection refused)");
                }
                return;
            } catch (IOException inconclusive) {
                LOG.log(System.Logger.Level.DEBUG, "app: listener probe inconclusive: "
                        + inconclusive.getClass().getSimpleName());
            }
        }
    }

    /**
     * @param listener the bound address
     * @return the address to probe: loopback of the same family for a wildcard listener, else itself
     */
    static InetSocketAddress probeAddress(InetSocketAddress listener) {
        if (!listener.getAddress().isAnyLocalAddress()) {
            return listener;
        }
        String loopback = listener.getAddress().getAddress().length == 4 ? "127.0.0.1" : "::1";
        return new InetSocketAddress(InetAddress.ofLiteral(loopback), listener.getPort());
    }
}
