package io.dogama.agent.auth.bench;

import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.internal.Admission;
import io.dogama.agent.auth.internal.NonceMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of admitting one fresh nonce into the persistent nonce memory: the real journal in a
 * temporary directory, forced to disk before the admission returns, the real clock. Every
 * invocation uses a new nonce, so every call is a first use that must become durable; a call that
 * is not {@link Admission#ADMITTED} aborts the run (the numbers would be meaningless). Run with
 * {@code -t 1} and {@code -t 32} (and {@code -p store=memory} for the set alone); see
 * docs/performance.md, section "Nonce store".
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class NonceStoreBench {
    /** Far above what one trial admits (at most a few hundred thousand), so the memory never fills. */
    private static final int CAPACITY = 2_000_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    /**
     * {@code journal}: the persistent memory (the figure that matters); {@code memory}: the same set
     * without a journal, to show what the set and the lock cost on their own. The set alone admits
     * millions a second, more than the capacity holds for a minute, so its clock runs 100 times
     * faster than real time: nonces expire after 0.6 s and the run measures the steady state with
     * whole-second expiry at work.
     */
    @Param({"journal"})
    public String store;

    private Path dir;
    private Clock clock;
    private NonceMemory memory;

    /** Each benchmark thread numbers its own nonces. */
    @State(Scope.Thread)
    public static class Nonces {
        private String prefix;
        private long counter;

        @Setup(Level.Trial)
        public void setUp() {
            prefix = String.format("bench-%04d-", THREADS.incrementAndGet());
        }

        String next() {
            return prefix + String.format("%016d", counter++);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("dogama-nonce-bench");
        clock = "memory".equals(store) ? new FastClock(100) : Clock.systemUTC();
        memory = "memory".equals(store) ? NonceMemory.inMemory(CAPACITY, NonceStore.RETENTION, clock)
                : NonceMemory.persistent(dir, CAPACITY, NonceStore.RETENTION, clock);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        memory.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** One first use of a nonce timestamped now, acknowledged only once it is on disk. */
    @Benchmark
    public Admission admit(Nonces nonces) {
        Admission a = memory.admit(nonces.next(), clock.instant());
        if (a != Admission.ADMITTED) {
            throw new IllegalStateException("nonce not admitted: " + a);
        }
        return a;
    }

    /** The real time since creation, multiplied. */
    private static final class FastClock extends Clock {
        private final long startMillis = System.currentTimeMillis();
        private final long startNanos = System.nanoTime();
        private final long factor;

        FastClock(long factor) {
            this.factor = factor;
        }

        @Override
        public long millis() {
            return startMillis + (System.nanoTime() - startNanos) / 1_000_000 * factor;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** Runs the benchmark; arguments are passed to JMH. */
    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(args);
    }
}
