package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One engine call shared by concurrent requests that each need its answer as fresh as a call of their
 * own: every answer comes from a call that began after its request arrived, and any such call will do.
 * Health shares its pings (SPEC section 2: health is a ping to the engine; the request's arrival is
 * stamped when it reaches the agent, before it is authenticated, so a ping begun by another check while
 * this one was authenticated and its nonce made durable answers it too); creates, replaces and port
 * checks share the listing of running containers.
 *
 * <p>A request takes, in this order: the latest finished call, if it began after the request arrived
 * (no wait); else a running call that began after it arrived; else a call of its own, while fewer than
 * {@code maxCalls} run; else the next call, which starts as soon as a running one ends and serves every
 * request that waits for it. The engine therefore sees at most {@code maxCalls} such calls at a time
 * however many requests arrive, and the agent holds at most that many answers being read, and a request
 * waits at most about two call times. A failed call is reused only by requests that arrived before it
 * began, like a successful one: a request arriving later calls afresh.
 *
 * <p>Calls run on platform threads of their own ({@code maxCalls} of them): a virtual thread blocked on
 * the engine's Unix socket is parked and woken by junixsocket's naive poller, which adds its polling
 * interval to every call.
 *
 * @param <T> the call's answer, shared by every request it answers: immutable
 */
final class SharedCall<T> {
    private static final System.Logger LOG = System.getLogger(SharedCall.class.getName());

    /** The engine call itself; throws when the engine does not answer within its bound. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws DockerException;
    }

    /** The outcome of one call: its answer, or (answer null) its failure. */
    private record Result<T>(T answer, DockerException failure) {
    }

    /**
     * A call that began at {@code startedNanos} and whose outcome {@code result} completes with. A class, not a
     * record: each is one call, found again by identity, and a record's equals is made at its first use (ObjectMethods'
     * bootstrap, method-handle classes spun in the interpreter on the first health check of a start).
     */
    private static final class Running<T> {
        final long startedNanos;
        final CompletableFuture<Result<T>> result;

        Running(long startedNanos, CompletableFuture<Result<T>> result) {
            this.startedNanos = startedNanos;
            this.result = result;
        }

        boolean beganAfter(long arrivedNanos) {
            return startedNanos - arrivedNanos >= 0;
        }
    }

    private final Call<T> call;
    private final int maxCalls;
    private final LongSupplier clock;
    private final ExecutorService callThreads;
    private final Object lock = new Object();
    /** Calls running now, at most {@link #maxCalls}. */
    private final List<Running<T>> running = new ArrayList<>();
    /** The finished call that began last; null before the first one ends. */
    private Running<T> latest;
    /** The requests waiting for the call that starts when a running one ends; null if none. */
    private CompletableFuture<Result<T>> next;
    /** Requests waiting for {@link #next}. */
    private int waiting;

    /**
     * @param threadName the prefix of its threads' names
     * @param maxCalls   calls at once, at least 1
     * @param call       the engine call
     */
    SharedCall(String threadName, int maxCalls, Call<T> call) {
        this(threadName, maxCalls, call, System::nanoTime);
    }

    /**
     * @param clock the clock arrivals are stamped with ({@link System#nanoTime()} outside tests)
     */
    SharedCall(String threadName, int maxCalls, Call<T> call, LongSupplier clock) {
        if (maxCalls < 1) {
            throw new IllegalArgumentException("lifecycle: maxCalls must be at least 1");
        }
        this.call = call;
        this.maxCalls = maxCalls;
        this.clock = clock;
        // Numbered here rather than by the builder's own counter (a VarHandle whose first use spins a method-handle
        // class in the interpreter, on the first health check of a start).
        AtomicInteger numbers = new AtomicInteger();
        this.callThreads = Executors.newFixedThreadPool(maxCalls,
                r -> Thread.ofPlatform().daemon(true).name(threadName + numbers.getAndIncrement()).unstarted(r));
    }

    /** @return the answer of a call that begins after now, on this object's clock */
    T get() throws DockerException {
        return get(clock.getAsLong());
    }

    /**
     * @param arrivedNanos when the request reached the agent, on this object's clock
     * @return the answer of a call that began after it arrived
     * @throws DockerException the failure of the call that answers the request, which began after it arrived
     */
    T get(long arrivedNanos) throws DockerException {
        CompletableFuture<Result<T>> mine = null;
        Running<T> lead = null;
        synchronized (lock) {
            if (latest != null && latest.beganAfter(arrivedNanos)) {
                mine = latest.result;
            } else {
                for (Running<T> p : running) {
                    if (p.beganAfter(arrivedNanos)) {
                        mine = p.result;
                        break;
                    }
                }
            }
            if (mine == null && running.size() < maxCalls) {
                lead = begin(new CompletableFuture<>());
                mine = lead.result;
            } else if (mine == null) {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                mine = next;
                waiting++;
            }
        }
        if (lead != null) {
            Running<T> started = lead;
            callThreads.execute(() -> run(started));
        }
        Result<T> r = mine.join();
        if (r.failure() != null) {
            throw r.failure();
        }
        return r.answer();
    }

    /** @return requests waiting for the next call, for tests */
    int waitingForNext() {
        synchronized (lock) {
            return waiting;
        }
    }

    /** Stamps a call's start, after every arrival it may answer; called holding {@link #lock}. */
    private Running<T> begin(CompletableFuture<Result<T>> result) {
        Running<T> p = new Running<>(clock.getAsLong(), result);
        running.add(p);
        return p;
    }

    /** Runs one call for whoever waits on it, then starts the next one, if requests wait for it. */
    private void run(Running<T> c) {
        try {
            c.result.complete(new Result<>(Objects.requireNonNull(call.call(), "answer"), null));
        } catch (DockerException e) {
            c.result.complete(new Result<>(null, e));
        } catch (RuntimeException | Error e) {
            // Never leave waiters hanging: each of them fails with it as an internal error.
            LOG.log(System.Logger.Level.ERROR, "lifecycle: a shared engine call failed unexpectedly", e);
            c.result.completeExceptionally(e);
        } finally {
            finish(c);
        }
    }

    private void finish(Running<T> ended) {
        Running<T> following = null;
        synchronized (lock) {
            running.remove(ended);
            // A call that broke (not a failure the engine reported) answers no later request.
            if (!ended.result.isCompletedExceptionally()
                    && (latest == null || !latest.beganAfter(ended.startedNanos))) {
                latest = ended;
            }
            if (next != null) {
                following = begin(next);
                next = null;
                waiting = 0;
            }
        }
        if (following != null) {
            // Runs on after this task: the same thread takes the next call.
            Running<T> started = following;
            callThreads.execute(() -> run(started));
        }
    }
}
