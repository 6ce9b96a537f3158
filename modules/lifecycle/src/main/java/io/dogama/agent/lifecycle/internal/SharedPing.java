package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Engine pings shared by concurrent health checks. Every answer reflects a ping that began after its
 * request arrived (SPEC section 2: health is a ping to the engine). A check that arrives while fewer
 * than {@code maxPings} pings run starts its own; otherwise it waits for the next ping, which starts as
 * soon as one of the running ones ends and serves every check that arrived in the meantime. The engine
 * therefore sees at most {@code maxPings} pings at a time however many checks arrive, and a check waits
 * at most about two ping times.
 *
 * <p>Pings run on platform threads of their own ({@code maxPings} of them): a virtual thread blocked on
 * the engine's Unix socket is parked and woken by junixsocket's naive poller, which adds its polling
 * interval to every ping.
 */
final class SharedPing {
    /**
     * Pings at once: one ping at a time would make health latency-bound (each check waits for a whole
     * ping that starts after the one running), a few overlap that wait while the engine still sees a
     * bounded number of pings.
     */
    static final int MAX_PINGS = 4;

    private static final System.Logger LOG = System.getLogger(SharedPing.class.getName());

    /** The ping itself; throws when the engine does not answer within its bound. */
    @FunctionalInterface
    interface Pinger {
        void ping() throws DockerException;
    }

    /** The outcome of one ping: null when the engine answered, else its failure. */
    private record Result(DockerException failure) {
    }

    private final Pinger pinger;
    private final int maxPings;
    private final ExecutorService pingThreads;
    private final Object lock = new Object();
    /** Pings running now. */
    private int running;
    /** The ping that starts when a running one ends, and the checks that wait for it; null if none. */
    private CompletableFuture<Result> next;
    /** Checks waiting for {@link #next}. */
    private int waiting;

    SharedPing(Pinger pinger) {
        this(pinger, MAX_PINGS);
    }

    SharedPing(Pinger pinger, int maxPings) {
        if (maxPings < 1) {
            throw new IllegalArgumentException("lifecycle: maxPings must be at least 1");
        }
        this.pinger = pinger;
        this.maxPings = maxPings;
        this.pingThreads = Executors.newFixedThreadPool(maxPings,
                Thread.ofPlatform().daemon(true).name("dogama-health-ping-", 0).factory());
    }

    /**
     * @throws DockerException the failure of the ping that began after this call
     */
    void ping() throws DockerException {
        CompletableFuture<Result> mine;
        boolean lead = false;
        synchronized (lock) {
            if (running < maxPings) {
                running++;
                lead = true;
                mine = new CompletableFuture<>();
            } else {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                mine = next;
                waiting++;
            }
        }
        if (lead) {
            pingThreads.execute(() -> run(mine));
        }
        Result r = mine.join();
        if (r.failure() != null) {
            throw r.failure();
        }
    }

    /** @return checks waiting for the next ping, for tests */
    int waitingForNext() {
        synchronized (lock) {
            return waiting;
        }
    }

    /** Runs one ping for {@code waiters}, then starts the next one, if checks wait for it. */
    private void run(CompletableFuture<Result> waiters) {
        try {
            pinger.ping();
            waiters.complete(new Result(null));
        } catch (DockerException e) {
            waiters.complete(new Result(e));
        } catch (RuntimeException | Error e) {
            // Never leave waiters hanging: each of them fails with it as an internal error.
            LOG.log(System.Logger.Level.ERROR, "lifecycle: health ping failed unexpectedly", e);
            waiters.completeExceptionally(e);
        } finally {
            finish();
        }
    }

    private void finish() {
        CompletableFuture<Result> following;
        synchronized (lock) {
            following = next;
            next = null;
            waiting = 0;
            if (following == null) {
                running--;
            }
        }
        if (following != null) {
            // Runs on after this task: the same ping thread takes the next ping.
            pingThreads.execute(() -> run(following));
        }
    }
}
