package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests share engine calls, and each answer comes from a call that began after its request arrived. */
class SharedCallTest {
    private static final long WAIT_SECONDS = 10;

    /** The clock pings are stamped with: each check below arrives at the time it is given. */
    private final AtomicLong now = new AtomicLong(1_000);
    /** Where each test's checks run, so that they can wait while the test releases pings. */
    private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stopChecks() {
        pool.shutdownNow();
    }

    /** A pinger whose pings block until released, one latch per ping, failing when told to. */
    private static final class ControlledEngine implements SharedCall.Call<Integer> {
        final LinkedBlockingQueue<CountDownLatch> started = new LinkedBlockingQueue<>();
        final AtomicInteger pings = new AtomicInteger();
        volatile boolean fail;

        @Override
        public Integer call() throws DockerException {
            int mine = pings.incrementAndGet();
            CountDownLatch release = new CountDownLatch(1);
            started.add(release);
            Harness.await(release); // released by the test, one call at a time
            if (fail) {
                throw new DockerUnavailableException("test engine down");
            }
            return mine;
        }

        CountDownLatch nextStarted() throws InterruptedException {
            CountDownLatch l = started.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("no ping started");
            }
            return l;
        }
    }

    @Test
    void checksArrivingDuringAPingShareTheNextOneNotTheRunningOne() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 1, engine, now::get);
        Future<?> first = pool.submit(() -> call(shared));
        CountDownLatch pingA = engine.nextStarted();
        // Ten checks arrive while ping A runs: none may be answered by A.
        List<Future<?>> later = parkedChecks(10, shared);
        pingA.countDown();
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        CountDownLatch pingB = engine.nextStarted(); // B starts after A ended
        assertNoneAnswered(later, "a check that arrived during ping A was answered by A");
        pingB.countDown();
        awaitAll(later);
        assertEquals(2, engine.pings.get(), "eleven checks, two pings");
    }

    @Test
    void upToMaxPingsRunAtOnceAndLaterChecksWaitForAFreshOne() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 2, engine, now::get);
        Future<?> first = pool.submit(() -> call(shared));
        CountDownLatch pingA = engine.nextStarted();
        Future<?> second = pool.submit(() -> call(shared));
        CountDownLatch pingB = engine.nextStarted(); // a second ping runs beside the first
        List<Future<?>> later = parkedChecks(5, shared);
        pingA.countDown();
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        CountDownLatch pingC = engine.nextStarted(); // starts when A ends, for the five waiting
        pingB.countDown();
        second.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNoneAnswered(later, "a check was answered by a ping that began before it arrived");
        pingC.countDown();
        awaitAll(later);
        assertEquals(3, engine.pings.get(), "seven checks, three pings");
    }

    /** Submits {@code n} checks and returns once all of them wait for a ping. */
    private List<Future<?>> parkedChecks(int n, SharedCall<Integer> shared) throws Exception {
        List<Future<?>> checks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            checks.add(pool.submit(() -> call(shared)));
        }
        waitUntilParked(n, shared);
        return checks;
    }

    private static void assertNoneAnswered(List<Future<?>> checks, String message) {
        for (Future<?> f : checks) {
            assertTrue(!f.isDone(), message);
        }
    }

    private static void awaitAll(List<Future<?>> checks) throws Exception {
        for (Future<?> f : checks) {
            f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFailedPingFailsEveryCheckItServes() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 1, engine, now::get);
        Future<?> first = pool.submit(() -> call(shared));
        CountDownLatch pingA = engine.nextStarted();
        Future<Boolean> second = pool.submit(() -> fails(shared));
        Future<Boolean> third = pool.submit(() -> fails(shared));
        waitUntilParked(2, shared);
        pingA.countDown();
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        engine.fail = true;
        engine.nextStarted().countDown();
        assertTrue(second.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(third.get(WAIT_SECONDS, TimeUnit.SECONDS));
        // The engine is back: the next check pings afresh instead of reusing the failure.
        engine.fail = false;
        Future<?> fourth = pool.submit(() -> call(shared));
        engine.nextStarted().countDown();
        fourth.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(3, engine.pings.get());
    }

    @Test
    void aFinishedPingThatBeganAfterACheckArrivedAnswersItWithoutAnotherPing() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 2, engine, now::get);
        now.set(200);
        Future<?> first = pool.submit(() -> arriving(shared, 200));
        engine.nextStarted().countDown(); // ping A, stamped 200, answers
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        now.set(300);
        // Arrived at 150, answered at 300 (its authentication took that long): A began after it arrived.
        arriving(shared, 150);
        assertEquals(1, engine.pings.get(), "a check was not answered by the finished ping that began after it");
        // Arrived at 250, after A began: A cannot answer it, a new ping must.
        Future<?> late = pool.submit(() -> arriving(shared, 250));
        engine.nextStarted().countDown();
        late.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(2, engine.pings.get(), "a check was answered by a ping that began before it arrived");
    }

    @Test
    void aRunningPingThatBeganAfterACheckArrivedAnswersItAndAnEarlierOneCannot() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 3, engine, now::get);
        now.set(200);
        Future<?> first = pool.submit(() -> arriving(shared, 200));
        CountDownLatch pingA = engine.nextStarted(); // A, stamped 200, runs
        now.set(300);
        Future<?> early = pool.submit(() -> arriving(shared, 150)); // joins A, starts nothing
        Future<?> late = pool.submit(() -> arriving(shared, 250));  // A began before it: its own ping
        CountDownLatch pingB = engine.nextStarted();
        pingA.countDown();
        first.get(WAIT_SECONDS, TimeUnit.SECONDS);
        early.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(!late.isDone(), "a check was answered by a ping that began before it arrived");
        pingB.countDown();
        late.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(2, engine.pings.get(), "three checks, two pings");
    }

    @Test
    void aFailedPingAnswersChecksThatArrivedBeforeItBeganAndNoLaterOnes() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        engine.fail = true;
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 1, engine, now::get);
        now.set(200);
        Future<Boolean> first = pool.submit(() -> failsArriving(shared, 200));
        engine.nextStarted().countDown();
        assertTrue(first.get(WAIT_SECONDS, TimeUnit.SECONDS));
        engine.fail = false;
        now.set(300);
        assertTrue(failsArriving(shared, 190), "the failed ping began after this check: it answers it");
        assertEquals(1, engine.pings.get());
        Future<Boolean> later = pool.submit(() -> failsArriving(shared, 210));
        engine.nextStarted().countDown();
        assertTrue(!later.get(WAIT_SECONDS, TimeUnit.SECONDS), "a later check was given an older failure");
        assertEquals(2, engine.pings.get());
    }

    @Test
    void aLoneCheckThatFindsTheEngineDownIsRefused() {
        SharedCall<Integer> shared = new SharedCall<>("test-ping-", 1, () -> {
            throw new DockerUnavailableException("test engine down");
        });
        assertThrows(DockerUnavailableException.class, shared::get);
    }

    @Test
    void requestsThatShareACallGetItsAnswerAndAtMostMaxCallsRunAtOnce() throws Exception {
        ControlledEngine engine = new ControlledEngine();
        SharedCall<Integer> shared = new SharedCall<>("test-listing-", 1, engine, now::get);
        Future<Integer> first = pool.submit(() -> shared.get(now.incrementAndGet()));
        CountDownLatch callA = engine.nextStarted();
        // Eight requests arrive while call A runs: they wait for one call B, started only once A ended.
        List<Future<Integer>> later = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            long arrived = now.incrementAndGet();
            later.add(pool.submit(() -> shared.get(arrived)));
        }
        waitUntilParked(8, shared);
        assertEquals(1, engine.pings.get(), "a second call ran beside the first");
        callA.countDown();
        assertEquals(1, first.get(WAIT_SECONDS, TimeUnit.SECONDS));
        engine.nextStarted().countDown();
        for (Future<Integer> f : later) {
            assertEquals(2, f.get(WAIT_SECONDS, TimeUnit.SECONDS), "not the answer of the call after its arrival");
        }
        assertEquals(2, engine.pings.get(), "nine requests, two calls");
    }

    private static Void arriving(SharedCall<Integer> shared, long arrived) throws DockerException {
        shared.get(arrived);
        return null;
    }

    private static boolean failsArriving(SharedCall<Integer> shared, long arrived) {
        try {
            shared.get(arrived);
            return false;
        } catch (DockerException e) {
            return true;
        }
    }

    /** A check that arrives now, after every ping that began before this call. */
    private Void call(SharedCall<Integer> shared) throws DockerException {
        return arriving(shared, now.incrementAndGet());
    }

    private boolean fails(SharedCall<Integer> shared) {
        return failsArriving(shared, now.incrementAndGet());
    }

    /** Waits (bounded) until {@code n} checks wait for the next ping. */
    private static void waitUntilParked(int n, SharedCall<Integer> shared) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (shared.waitingForNext() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + shared.waitingForNext() + " of " + n + " checks are waiting");
            }
            Thread.onSpinWait(); // the checks park within microseconds of being submitted
        }
    }
}
