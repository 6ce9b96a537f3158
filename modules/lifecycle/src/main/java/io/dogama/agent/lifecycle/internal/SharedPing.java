package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * Engine pings shared by concurrent health checks. Every answer reflects a ping that began after its
 * request arrived (SPEC section 2: health is a ping to the engine), and any such ping will do: the
 * request's arrival is stamped when it reaches the agent, before it is authenticated, so a ping begun
 * by another check while this one was authenticated and its nonce made durable answers it too.
 *
 * <p>A check takes, in this order: the latest finished ping, if it began after the check arrived (no
 * wait); else a running ping that began after it arrived; else a ping of its own, while fewer than
 * {@code maxPings} run; else the next ping, which starts as soon as a running one ends and serves every
 * check that waits for it. The engine therefore sees at most {@code maxPings} pings at a time however
 * many checks arrive, and a check waits at most about two ping times. A failed ping is reused only by
 * checks that arrived before it began, like a successful one: a check arriving later pings afresh.
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

    /** A ping that began at {@code startedNanos} and whose outcome {@code result} completes with. */
    private record Ping(long startedNanos, CompletableFuture<Result> result) {
        boolean beganAfter(long arrivedNanos) {
            return startedNanos - arrivedNanos >= 0;
        }
    }

    private final Pinger pinger;
    private final int maxPings;
    private final LongSupplier clock;
    private final ExecutorService pingThreads;
    private final Object lock = new Object();
    /** Pings running now, at most {@link #maxPings}. */
    private final List<Ping> running = new ArrayList<>();
    /** The finished ping that began last; null before the first one ends. */
    private Ping latest;
    /** The checks waiting for the ping that starts when a running one ends; null if none. */
    private CompletableFuture<Result> next;
    /** Checks waiting for {@link #next}. */
    private int waiting;

    SharedPing(Pinger pinger) {
        this(pinger, MAX_PINGS, System::nanoTime);
    }

    /**
     * @param clock the clock arrivals are stamped with ({@link System#nanoTime()} outside tests)
     */
    SharedPing(Pinger pinger, int maxPings, LongSupplier clock) {
        if (maxPings < 1) {
            throw new IllegalArgumentException("lifecycle: maxPings must be at least 1");
        }
        this.pinger = pinger;
        this.maxPings = maxPings;
        this.clock = clock;
        this.pingThreads = Executors.newFixedThreadPool(maxPings,
                Thread.ofPlatform().daemon(true).name("dogama-health-ping-", 0).factory());
    }

    /**
     * @param arrivedNanos when the check's request reached the agent, on this object's clock
     * @throws DockerException the failure of the ping that answers the check, which began after it arrived
     */
    void ping(long arrivedNanos) throws DockerException {
        CompletableFuture<Result> mine = null;
        Ping lead = null;
        synchronized (lock) {
            if (latest != null && latest.beganAfter(arrivedNanos)) {
                mine = latest.result();
            } else {
                for (Ping p : running) {
                    if (p.beganAfter(arrivedNanos)) {
                        mine = p.result();
                        break;
                    }
                }
            }
            if (mine == null && running.size() < maxPings) {
                lead = begin(new CompletableFuture<>());
                mine = lead.result();
            } else if (mine == null) {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                mine = next;
                waiting++;
            }
        }
        if (lead != null) {
            Ping started = lead;
            pingThreads.execute(() -> run(started));
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

    /** Stamps a ping's start, after every arrival it may answer; called holding {@link #lock}. */
    private Ping begin(CompletableFuture<Result> result) {
        Ping p = new Ping(clock.getAsLong(), result);
        running.add(p);
        return p;
    }

    /** Runs one ping for whoever waits on it, then starts the next one, if checks wait for it. */
    private void run(Ping ping) {
        try {
            pinger.ping();
            ping.result().complete(new Result(null));
        } catch (DockerException e) {
            ping.result().complete(new Result(e));
        } catch (RuntimeException | Error e) {
            // Never leave waiters hanging: each of them fails with it as an internal error.
            LOG.log(System.Logger.Level.ERROR, "lifecycle: health ping failed unexpectedly", e);
            ping.result().completeExceptionally(e);
        } finally {
            finish(ping);
        }
    }

    private void finish(Ping ended) {
        Ping following = null;
        synchronized (lock) {
            running.remove(ended);
            // A ping that broke (not a failure the engine reported) answers no later check.
            if (!ended.result().isCompletedExceptionally()
                    && (latest == null || !latest.beganAfter(ended.startedNanos()))) {
                latest = ended;
            }
            if (next != null) {
                following = begin(next);
                next = null;
                waiting = 0;
            }
        }
        if (following != null) {
            // Runs on after this task: the same ping thread takes the next ping.
            Ping started = following;
            pingThreads.execute(() -> run(started));
        }
    }
}
