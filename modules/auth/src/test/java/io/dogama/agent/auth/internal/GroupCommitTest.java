package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.TestClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group commit of the persistent nonce memory, on a disk whose forces the test holds, fails or
 * loses: an admission is acknowledged only after the force that covers it, one force covers every
 * admission that arrived while the previous one ran, a failed force refuses every admission it covered,
 * and after a power loss every acknowledged nonce is still refused.
 */
class GroupCommitTest {
    private static final Instant T0 = Instant.parse("2026-12-01T19:04:05Z");
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    private static final long BOUND_SECONDS = 20;

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);
    private final LossyDisk disk = new LossyDisk();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch inForce = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        pool.shutdownNow();
    }

    private static String nonce(int i) {
        return String.format("nonce-%016d", i);
    }

    private NonceMemory open(JournalDisk on, Duration wait) throws Exception {
        return NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, wait, clock, on, NonceMemory.MAX_PENDING_BYTES);
    }

    /** The first force of appended lines waits for {@link #release}; later ones pass. */
    private void holdFirstForce() {
        disk.hook(n -> {
            if (n == 1) {
                inForce.countDown();
                awaitOrFail(release);
            }
        });
    }

    private static void awaitOrFail(CountDownLatch latch) throws IOException {
        try {
            if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("test: latch not released in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("test: interrupted", e);
        }
    }

    private Future<Admission> admitAsync(NonceMemory m, String nonce) {
        return pool.submit(() -> m.admit(nonce, T0));
    }

    /** Waits, bounded, for a condition another thread makes true (no sleep as synchronisation). */
    private static void eventually(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + BOUND_SECONDS + " s: " + what);
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void admissionIsAcknowledgedOnlyAfterTheForceThatCoversIt() throws Exception {
        holdFirstForce();
        try (NonceMemory m = open(disk, LONG_WAIT)) {
            Future<Admission> first = admitAsync(m, nonce(1));
            assertTrue(inForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
            // The line is written and its force is running: not acknowledged yet.
            assertThrows(first);
            // A concurrent second use of the same nonce is refused at once, without waiting for the disk.
            assertEquals(Admission.REPLAYED, m.admit(nonce(1), T0));
            assertFalse(first.isDone());
            release.countDown();
            assertEquals(Admission.ADMITTED, first.get(BOUND_SECONDS, TimeUnit.SECONDS));
            assertEquals(1, disk.forces());
        }
    }

    private static void assertThrows(Future<Admission> pending) throws Exception {
        try {
            Admission a = pending.get(50, TimeUnit.MILLISECONDS);
            fail("acknowledged before its force completed: " + a);
        } catch (TimeoutException expected) {
            // still waiting for the disk, as it must
        }
    }

    @Test
    void oneForceCoversEveryAdmissionThatArrivedWhileThePreviousOneRan() throws Exception {
        holdFirstForce();
        try (NonceMemory m = open(disk, LONG_WAIT)) {
            Future<Admission> first = admitAsync(m, nonce(0));
            assertTrue(inForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
            List<Future<Admission>> next = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                next.add(admitAsync(m, nonce(i)));
            }
            eventually(() -> m.size() == 21, "all 21 nonces are in the memory");
            for (Future<Admission> f : next) {
                assertFalse(f.isDone(), "acknowledged before any force covered it");
            }
            release.countDown();
            assertEquals(Admission.ADMITTED, first.get(BOUND_SECONDS, TimeUnit.SECONDS));
            for (Future<Admission> f : next) {
                assertEquals(Admission.ADMITTED, f.get(BOUND_SECONDS, TimeUnit.SECONDS));
            }
            assertEquals(2, disk.forces(), "twenty admissions that arrived during the first force share the second");
        }
    }

    @Test
    void failedForceRefusesEveryAdmissionItCoveredAndEveryLaterOne() throws Exception {
        CountDownLatch failNow = new CountDownLatch(1);
        disk.hook(n -> {
            if (n == 1) {
                inForce.countDown();
                awaitOrFail(failNow);
                throw new IOException("test: EIO on fsync");
            }
        });
        try (NonceMemory m = open(disk, LONG_WAIT)) {
            Future<Admission> first = admitAsync(m, nonce(0));
            assertTrue(inForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
            eventually(() -> m.size() == 1, "the first nonce is in the memory");
            failNow.countDown();
            assertEquals(Admission.FAILED, first.get(BOUND_SECONDS, TimeUnit.SECONDS));
            // The journal is not trusted any more: a later force succeeding would prove nothing.
            assertEquals(Admission.FAILED, m.admit(nonce(1), T0));
            // A refused nonce stays remembered; refusing its reuse is safe.
            assertEquals(Admission.FAILED, m.admit(nonce(0), T0));
            assertEquals(0, disk.forces());
        }
    }

    @Test
    void failedForceWithManyWaitersRefusesThemAll() throws Exception {
        CountDownLatch failNow = new CountDownLatch(1);
        disk.hook(n -> {
            if (n == 1) {
                inForce.countDown();
                awaitOrFail(release);
            } else if (n == 2) {
                awaitOrFail(failNow);
                throw new IOException("test: EIO on fsync");
            }
        });
        try (NonceMemory m = open(disk, LONG_WAIT)) {
            Future<Admission> first = admitAsync(m, nonce(0));
            assertTrue(inForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
            List<Future<Admission>> second = new ArrayList<>();
            for (int i = 1; i <= 10; i++) {
                second.add(admitAsync(m, nonce(i)));
            }
            eventually(() -> m.size() == 11, "eleven nonces are in the memory");
            release.countDown();
            assertEquals(Admission.ADMITTED, first.get(BOUND_SECONDS, TimeUnit.SECONDS));
            failNow.countDown();
            for (Future<Admission> f : second) {
                assertEquals(Admission.FAILED, f.get(BOUND_SECONDS, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void stalledDiskIsRefusedWithinTheBoundAndTheNonceStaysRemembered() throws Exception {
        holdFirstForce();
        try (NonceMemory m = open(disk, Duration.ofMillis(200))) {
            long start = System.nanoTime();
            assertEquals(Admission.STALLED, m.admit(nonce(1), T0));
            long waited = System.nanoTime() - start;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(200) && waited < TimeUnit.SECONDS.toNanos(BOUND_SECONDS),
                    "waited " + waited + " ns");
            assertEquals(Admission.REPLAYED, m.admit(nonce(1), T0));
            assertEquals(1, m.refusedStalled());
            assertEquals(0, m.refusedFull());
            release.countDown();
            // The disk recovers: later admissions are durable and acknowledged again.
            assertEquals(Admission.ADMITTED, m.admit(nonce(2), T0));
        }
        try (NonceMemory m = open(JournalDisk.REAL, LONG_WAIT)) {
            assertEquals(Admission.REPLAYED, m.admit(nonce(1), T0), "the stalled line reached the disk later");
            assertEquals(Admission.REPLAYED, m.admit(nonce(2), T0));
        }
    }

    /**
     * Power loss while a force is running: the acknowledged nonces survive, the one being forced was
     * refused and is lost with the unforced bytes (which shows this disk does lose what was not forced).
     */
    @Test
    void powerLossKeepsEveryAcknowledgedNonceAndLosesWhatWasNotForced() throws Exception {
        CountDownLatch crashed = new CountDownLatch(1);
        CountDownLatch inThirdForce = new CountDownLatch(1);
        disk.hook(n -> {
            if (n == 3) {
                inThirdForce.countDown();
                awaitOrFail(crashed);
            }
        });
        NonceMemory m = open(disk, LONG_WAIT);
        assertEquals(Admission.ADMITTED, m.admit(nonce(1), T0));
        assertEquals(Admission.ADMITTED, m.admit(nonce(2), T0));
        Future<Admission> third = admitAsync(m, nonce(3));
        assertTrue(inThirdForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
        disk.crash();
        crashed.countDown();
        assertEquals(Admission.FAILED, third.get(BOUND_SECONDS, TimeUnit.SECONDS));
        m.close();
        try (NonceMemory restarted = open(JournalDisk.REAL, LONG_WAIT)) {
            assertEquals(Admission.REPLAYED, restarted.admit(nonce(1), T0));
            assertEquals(Admission.REPLAYED, restarted.admit(nonce(2), T0));
            assertEquals(Admission.ADMITTED, restarted.admit(nonce(3), T0), "the unforced line was lost");
        }
    }

    /** Many threads admit while the power fails at an arbitrary moment; every acknowledged nonce survives. */
    @Test
    void powerLossUnderConcurrentLoadKeepsEveryAcknowledgedNonce() throws Exception {
        for (int round = 0; round < 3; round++) {
            Path data = Files.createDirectory(dir.resolve("round" + round));
            LossyDisk lossy = new LossyDisk();
            NonceMemory m = NonceMemory.persistent(data, 100_000, NonceStore.RETENTION, LONG_WAIT, clock, lossy,
                    NonceMemory.MAX_PENDING_BYTES);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicInteger refused = new AtomicInteger();
            int threads = 16;
            CountDownLatch enough = new CountDownLatch(200 + 150 * round);
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 5000; i++) {
                        String n = String.format("load-%02d-%015d", id, i);
                        Admission a = m.admit(n, T0);
                        if (a == Admission.ADMITTED) {
                            acknowledged.add(n);
                            enough.countDown();
                        } else {
                            refused.incrementAndGet();
                            return null; // the disk is gone
                        }
                    }
                    return null;
                }));
            }
            assertTrue(enough.await(BOUND_SECONDS, TimeUnit.SECONDS), "writers did not get going");
            lossy.crash();
            for (Future<?> w : writers) {
                w.get(BOUND_SECONDS, TimeUnit.SECONDS);
            }
            m.close();
            Set<String> known = Set.copyOf(acknowledged);
            try (NonceMemory restarted = NonceMemory.persistent(data, 100_000, NonceStore.RETENTION, LONG_WAIT,
                    clock)) {
                for (String n : known) {
                    assertEquals(Admission.REPLAYED, restarted.admit(n, T0), "round " + round + ": lost " + n);
                }
            }
            assertTrue(refused.get() > 0, "the crash refused the admissions in flight");
        }
    }

    /** 32 threads each use the same 40 nonces, in their own order, at once: each nonce is admitted exactly once. */
    @Test
    void concurrentUsesOfEachNonceAdmitExactlyOne() throws Exception {
        int threads = 32;
        int nonces = 40;
        try (NonceMemory m = open(JournalDisk.REAL, LONG_WAIT)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Admission>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t;
                results.add(pool.submit(() -> {
                    go.await();
                    List<Admission> mine = new ArrayList<>();
                    for (int i = 0; i < nonces; i++) {
                        mine.add(m.admit(nonce((i + offset) % nonces), T0));
                    }
                    return mine;
                }));
            }
            go.countDown();
            int[] admitted = new int[nonces];
            for (int t = 0; t < threads; t++) {
                List<Admission> mine = results.get(t).get(BOUND_SECONDS, TimeUnit.SECONDS);
                for (int i = 0; i < nonces; i++) {
                    Admission a = mine.get(i);
                    assertTrue(a == Admission.ADMITTED || a == Admission.REPLAYED, a.toString());
                    if (a == Admission.ADMITTED) {
                        admitted[(i + t) % nonces]++;
                    }
                }
            }
            for (int i = 0; i < nonces; i++) {
                assertEquals(1, admitted[i], "nonce " + i);
            }
        }
    }

    @Test
    void tooManyLinesWaitingForTheDiskAreRefusedAtOnceAndNotRemembered() throws Exception {
        holdFirstForce();
        int line = (T0.plus(NonceStore.RETENTION).toEpochMilli() + " " + nonce(0) + "\n").length();
        try (NonceMemory m = NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, LONG_WAIT, clock, disk,
                2 * line)) {
            Future<Admission> first = admitAsync(m, nonce(0));
            assertTrue(inForce.await(BOUND_SECONDS, TimeUnit.SECONDS));
            Future<Admission> second = admitAsync(m, nonce(1));
            Future<Admission> third = admitAsync(m, nonce(2));
            eventually(() -> m.size() == 3, "two lines wait for the next force");
            // The limit is reached: refused without waiting for the disk, and not remembered.
            assertEquals(Admission.STALLED, m.admit(nonce(3), T0));
            assertEquals(3, m.size());
            assertEquals(1, m.refusedStalled());
            release.countDown();
            for (Future<Admission> f : List.of(first, second, third)) {
                assertEquals(Admission.ADMITTED, f.get(BOUND_SECONDS, TimeUnit.SECONDS));
            }
            assertEquals(Admission.ADMITTED, m.admit(nonce(3), T0));
        }
    }

    @Test
    void requestSoOldItsNonceWouldBeForgottenAtOnceIsRefusedAsBeforeTheMemory() throws Exception {
        try (NonceMemory m = open(JournalDisk.REAL, LONG_WAIT)) {
            clock.set(T0.plusSeconds(200));
            assertEquals(Admission.BEFORE_MEMORY, m.admit(nonce(1), T0.plusSeconds(100)));
            assertEquals(Admission.ADMITTED, m.admit(nonce(2), T0.plusSeconds(170)));
        }
    }

    @Test
    void rotatedSegmentsAreOwnerOnlyFromTheirCreation() throws Exception {
        try (NonceMemory m = open(JournalDisk.REAL, LONG_WAIT)) {
            assertEquals(Admission.ADMITTED, m.admit(nonce(1), T0));
            clock.advance(Duration.ofMillis(NonceJournal.SEGMENT_MILLIS));
            assertEquals(Admission.ADMITTED, m.admit(nonce(2), clock.instant()));
        }
        assertTrue(Files.exists(dir.resolve(NonceJournal.FILE + ".1")), "a second segment was started");
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
            }
        }
        try (NonceMemory m = open(JournalDisk.REAL, LONG_WAIT)) {
            assertEquals(Admission.REPLAYED, m.admit(nonce(1), T0));
            assertEquals(Admission.REPLAYED, m.admit(nonce(2), clock.instant()));
        }
    }

    @Test
    void closeWritesWhatIsPendingAndLaterAdmissionsAreRefused() throws Exception {
        NonceMemory m = open(JournalDisk.REAL, LONG_WAIT);
        assertEquals(Admission.ADMITTED, m.admit(nonce(1), T0));
        m.close();
        m.close();
        assertEquals(Admission.FAILED, m.admit(nonce(2), T0));
        try (NonceMemory restarted = open(JournalDisk.REAL, LONG_WAIT)) {
            assertEquals(Admission.REPLAYED, restarted.admit(nonce(1), T0));
        }
    }
}
