package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import java.util.concurrent.CompletableFuture;

/**
 * Engine pings shared by concurrent health checks. Every answer reflects a ping that began after its
 * request arrived (SPEC section 2: health is a ping to the engine): a check that arrives while no ping
 * runs starts one; a check that arrives while one runs waits for the next, which starts as soon as the
 * running one ends and serves every check that arrived in the meantime. So the engine sees at most one
 * ping at a time and at most one waiting, however many checks arrive, and a flood of health checks
 * costs the engine no more than one ping after another.
 */
final class SharedPing {
    /** The ping itself; throws when the engine does not answer within its bound. */
    @FunctionalInterface
    interface Pinger {
        void ping() throws DockerException;
    }

    /** The outcome of one ping: null when the engine answered, else its failure. */
    private record Result(DockerException failure) {
    }

    private final Pinger pinger;
    private final Object lock = new Object();
    /** True while a ping runs. */
    private boolean running;
    /** The ping that starts when the running one ends, and the checks that wait for it; null if none. */
    private CompletableFuture<Result> next;
    /** Checks waiting for {@link #next}. */
    private int waiting;

    SharedPing(Pinger pinger) {
        this.pinger = pinger;
    }

    /**
     * @throws DockerException the failure of the ping that began after this call
     */
    void ping() throws DockerException {
        CompletableFuture<Result> mine;
        boolean lead = false;
        synchronized (lock) {
            if (!running) {
                running = true;
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
            run(mine);
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

    /** Runs one ping for {@code waiters}, then hands the next one, if any, to a thread of its own. */
    private void run(CompletableFuture<Result> waiters) {
        Result result;
        try {
            pinger.ping();
            result = new Result(null);
        } catch (DockerException e) {
            result = new Result(e);
        } catch (RuntimeException | Error e) {
            // Never leave waiters hanging; they see it as the engine being unavailable.
            waiters.completeExceptionally(e);
            finish();
            throw e;
        }
        waiters.complete(result);
        finish();
    }

    private void finish() {
        CompletableFuture<Result> following;
        synchronized (lock) {
            following = next;
            next = null;
            waiting = 0;
            running = following != null;
        }
        if (following != null) {
            // This thread's own request is answered already; it does not wait for the next ping.
            Thread.ofVirtual().name("dogama-health-ping").start(() -> run(following));
        }
    }
}
