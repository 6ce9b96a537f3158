package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The listener watch against real sockets: a closed listener is found, a stop in progress is not a death. */
class LifetimeTest {
    private static final Duration FOUND_WITHIN = Lifetime.PROBE_INTERVAL.multipliedBy(3);

    @Test
    void aListenerThatIsGoneIsFound() throws Exception {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Lifetime life = Lifetime.watch((InetSocketAddress) server.getLocalSocketAddress(), () -> true);
        CompletableFuture<String> death = CompletableFuture.supplyAsync(life::awaitDeath);
        // Alive through two probes (nothing accepts them: the kernel's queue is enough, as for Helidon).
        assertTrue(life.awaitProbesPassed(2, FOUND_WITHIN), "two probes did not find a listening socket");
        assertFalse(death.isDone(), "a listening socket is alive");
        server.close();
        String why = death.get(FOUND_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(why.contains("connection refused"), why);
    }

    @Test
    void aServerReportingItselfStoppedIsADeath() {
        AtomicBoolean listening = new AtomicBoolean(true);
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Lifetime life = Lifetime.watch((InetSocketAddress) server.getLocalSocketAddress(), listening::get);
            listening.set(false);
            String why = assertTimeoutPreemptively(FOUND_WITHIN, life::awaitDeath);
            assertTrue(why.contains("stopped"), why);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aStopInProgressIsNoDeath() throws Exception {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Lifetime life = Lifetime.watch((InetSocketAddress) server.getLocalSocketAddress(), () -> true);
        CompletableFuture<String> death = CompletableFuture.supplyAsync(life::awaitDeath);
        life.stopping();
        server.close();
        life.ended().get(FOUND_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        assertFalse(death.isDone(), "the listener closed by a stop is not reported");
    }

    @Test
    void aWildcardListenerIsProbedOnLoopback() {
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 8480),
                Lifetime.probeAddress(new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 8480)));
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("::1"), 8480),
                Lifetime.probeAddress(new InetSocketAddress(InetAddress.ofLiteral("::"), 8480)));
        InetSocketAddress specific = new InetSocketAddress(InetAddress.ofLiteral("10.1.2.3"), 8480);
        assertEquals(specific, Lifetime.probeAddress(specific));
    }
}
