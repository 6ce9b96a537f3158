package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Racing writers on one instance: exactly one wins each compare-and-set. */
class ConcurrencyTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 200;
    private static final long TIMEOUT_SECONDS = 60;

    @TempDir
    Path dir;

    /** Runs {@code task} on {@link #THREADS} threads released together; returns each thread's result. */
    private static <T> List<T> race(IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<T>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Callable<T> c = task.apply(t);
                futures.add(pool.submit(() -> {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    return c.call();
                }));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void exactlyOneCompareAndSetWinsEachRound() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            InstanceRecord base = Samples.record("contended", 1);
            r.insert(base);
            for (int round = 0; round < ROUNDS; round++) {
                long generation = ((Lookup.Found) r.get("contended")).generation();
                List<CasResult> results = race(t -> () -> r.replace(generation,
                        base.withStep(Optional.of("thread-" + t))));
                List<CasResult> won = results.stream().filter(c -> c instanceof CasResult.Stored).toList();
                assertEquals(1, won.size(), "round " + round + ": " + results);
                for (CasResult c : results) {
                    if (!(c instanceof CasResult.Stored)) {
                        assertEquals(generation + 1, assertInstanceOf(CasResult.Conflict.class, c).currentGeneration());
                    }
                }
                Lookup.Found now = (Lookup.Found) r.get("contended");
                assertEquals(generation + 1, now.generation());
                assertEquals(((CasResult.Stored) won.get(0)).record(), now.record(), "the winner's write is stored");
            }
        }
    }

    @Test
    void exactlyOneConcurrentInsertAndOneRemoveWin() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            for (int round = 0; round < 50; round++) {
                List<CasResult> inserts = race(t -> () -> r.insert(Samples.record("contended", t)));
                assertEquals(1, inserts.stream().filter(c -> c instanceof CasResult.Stored).count(), "" + inserts);
                List<CasResult> removes = race(t -> () -> r.remove("contended", 1));
                assertEquals(1, removes.stream().filter(c -> c instanceof CasResult.Removed).count(), "" + removes);
                assertTrue(removes.stream().allMatch(c -> c instanceof CasResult.Removed
                        || c instanceof CasResult.Absent), "" + removes);
            }
        }
    }

    @Test
    void concurrentInsertsNeverExceedTheLimit() throws Exception {
        int limit = 5;
        try (Registry r = Registry.open(dir, limit)) {
            List<List<CasResult>> all = new ArrayList<>();
            for (int wave = 0; wave < 3; wave++) {
                int w = wave;
                all.add(race(t -> () -> r.insert(Samples.record("inst-" + w + "-" + t, t))));
            }
            long stored = all.stream().flatMap(List::stream).filter(c -> c instanceof CasResult.Stored).count();
            long full = all.stream().flatMap(List::stream).filter(c -> c instanceof CasResult.Full).count();
            assertEquals(limit, stored);
            assertEquals(3L * THREADS - limit, full);
            assertEquals(limit, r.all().size());
        }
    }
}
