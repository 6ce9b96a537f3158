package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.AuthException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bounded memory of accepted nonces. Each nonce is kept until its request timestamp plus the
 * retention period (rounded up to the next whole second); when the memory holds {@code capacity}
 * unexpired nonces it refuses new ones ({@link Admission#FULL}) rather than forgetting one. The set
 * itself is a {@link NonceTable} of keyed 64-bit fingerprints ({@link NonceHash}) outside the Java heap,
 * which grows with the rate up to 18 bytes per nonce of capacity (36 MB for 2,000,000) and is freed
 * by {@link #close}.
 *
 * <p><b>Concurrency and durability (group commit).</b> An admission takes the lock only to look the
 * nonce up, insert it and append its journal line to the open batch: a concurrent second use of the
 * same nonce therefore finds it at once and is {@link Admission#REPLAYED}, whether or not the first
 * use is durable yet. Outside the lock the admission then waits for its batch. One journal thread
 * takes the open batch (leaving a new, empty one for later admissions), writes it and forces it to
 * disk, then completes every admission of the batch: {@link Admission#ADMITTED} only after that
 * force returned, so no nonce is acknowledged before it is on disk. While one force runs, every new
 * admission joins the next batch, and the next force covers all of them.
 *
 * <p><b>Failures.</b> A write that left nothing in the journal (a full file system: what got in
 * is cut off again) refuses its batch as {@link Admission#STALLED} and the next batch tries again.
 * If a write or force fails otherwise, every admission of that batch is
 * {@link Admission#FAILED} (refused, never accepted), the failure is logged at ERROR, and the memory
 * refuses every later admission as {@code FAILED} until the agent is restarted: after a failed
 * {@code fsync} the kernel may have dropped the unwritten pages, so a later successful force proves
 * nothing about the earlier lines. An admission whose force has not completed within the durable wait
 * is {@link Admission#STALLED} (the disk is too slow; the request is refused as busy), and so is one
 * that arrives while more than {@value #MAX_PENDING_BYTES} bytes of lines already wait (that one is not
 * taken at all). A nonce refused after it was taken (stalled or failed) stays remembered: refusing a
 * later use of it is always safe.
 *
 * <p><b>Crash.</b> After a crash at any point, every nonce whose admission returned {@code ADMITTED}
 * is in a forced journal segment and is refused by the restarted memory until it expires; lines of
 * admissions that never returned may or may not be there. A brand-new journal (none found) begins
 * now, so requests timestamped before its start are {@link Admission#BEFORE_MEMORY}.
 */
public final class NonceMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NonceMemory.class.getName());

    /** The most bytes of journal lines that may wait for the next force, 4 MiB (about 60,000 nonces). */
    static final int MAX_PENDING_BYTES = 4 << 20;
    /** How long {@link #close} waits for the journal thread to write what is pending, 5 s. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    /** Life of the memory; only the lock holder changes it. */
    private enum State {
        /** Admitting. */
        OPEN,
        /** A write or force failed: every admission is refused until restart. */
        BROKEN,
        /** {@link #close} was called; the journal thread writes what is pending and stops. */
        CLOSED
    }

    private final long retentionMillis;
    private final long durableWaitNanos;
    private final int maxPendingBytes;
    private final Clock clock;
    private final Instant since;
    private final NonceJournal journal;
    private final NonceHash hash;
    private final NonceTable table;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Thread journalThread;
    private State state = State.OPEN;
    /** The last batch could not be written at all (only the writer thread reads and writes this). */
    private boolean noSpace;
    private Batch open = new Batch();
    private boolean closed;
    /** Admissions refused {@link Admission#FULL}: the capacity is too small for the request rate. */
    private final LongAdder full = new LongAdder();
    /** Admissions refused {@link Admission#STALLED}: the disk did not keep up (or was full). */
    private final LongAdder stalled = new LongAdder();

    /** Journal lines that one force makes durable, and the admissions waiting for it. */
    private static final class Batch {
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile Admission outcome;
        private byte[] bytes = new byte[4096];
        private int length;
        private int count;
        private long maxExpiryMillis = Long.MIN_VALUE;

        void add(byte[] line, long expiryMillis) {
            if (length + line.length > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + line.length));
            }
            System.arraycopy(line, 0, bytes, length, line.length);
            length += line.length;
            count++;
            maxExpiryMillis = Math.max(maxExpiryMillis, expiryMillis);
        }

        void complete(Admission result) {
            outcome = result;
            done.countDown();
        }
    }

    private NonceMemory(Duration retention, Duration durableWait, int maxPendingBytes, Clock clock, Instant since,
            NonceJournal journal, NonceHash hash, NonceTable table) {
        this.retentionMillis = retention.toMillis();
        this.durableWaitNanos = durableWait.toNanos();
        this.maxPendingBytes = maxPendingBytes;
        this.clock = clock;
        this.since = since;
        this.journal = journal;
        this.hash = hash;
        this.table = table;
        if (journal == null) {
            journalThread = null;
        } else {
            journalThread = Thread.ofPlatform().name("dogama-nonce-journal").daemon(true).unstarted(this::runJournal);
            journalThread.start();
        }
    }

    /**
     * A memory that starts empty and forgets everything with the process; it therefore refuses requests
     * timestamped before its creation.
     *
     * @param capacity  maximum unexpired nonces
     * @param retention how long after its request timestamp a nonce is kept
     * @param clock     the clock
     * @return the memory
     */
    public static NonceMemory inMemory(int capacity, Duration retention, Clock clock) {
        Instant now = clock.instant();
        return new NonceMemory(retention, Duration.ZERO, 0, clock, now, null, NonceHash.random(),
                new NonceTable(capacity, 0, Math.floorDiv(now.toEpochMilli(), 1000)));
    }

    /**
     * A memory backed by a journal in {@code dataDir}, reloaded on start, with the default durable wait.
     *
     * @param dataDir   an existing directory
     * @param capacity  maximum unexpired nonces
     * @param retention how long after its request timestamp a nonce is kept
     * @param clock     the clock
     * @return the memory
     * @throws AuthException if the journal cannot be read, written or locked, or is corrupt
     */
    public static NonceMemory persistent(Path dataDir, int capacity, Duration retention, Clock clock)
            throws AuthException {
        return persistent(dataDir, capacity, retention, io.dogama.agent.auth.NonceStore.DURABLE_WAIT, clock);
    }

    /**
     * A memory backed by a journal in {@code dataDir}, reloaded on start.
     *
     * @param dataDir     an existing directory
     * @param capacity    maximum unexpired nonces
     * @param retention   how long after its request timestamp a nonce is kept
     * @param durableWait how long an admission waits for the force that covers it before it is {@code STALLED}
     * @param clock       the clock
     * @return the memory
     * @throws AuthException if the journal cannot be read, written or locked, or is corrupt
     */
    public static NonceMemory persistent(Path dataDir, int capacity, Duration retention, Duration durableWait,
            Clock clock) throws AuthException {
        return persistent(dataDir, capacity, retention, durableWait, clock, JournalDisk.REAL, MAX_PENDING_BYTES);
    }

    /**
     * As above, on the given disk (tests put one under it that loses what was not forced) and with the
     * given limit of bytes waiting for a force.
     */
    static NonceMemory persistent(Path dataDir, int capacity, Duration retention, Duration durableWait, Clock clock,
            JournalDisk disk, int maxPendingBytes) throws AuthException {
        if (durableWait.isNegative() || durableWait.isZero()) {
            throw new IllegalArgumentException("auth: the durable wait must be positive");
        }
        long now = clock.millis();
        NonceJournal.Loaded loaded = NonceJournal.open(dataDir, Instant.ofEpochMilli(now), retention,
                Objects.requireNonNull(disk));
        NonceHash hash = NonceHash.random();
        // The table's clock is the journal's cutoff: every line handed over expires at or after it, so the
        // table takes each one, however long the rewrite takes (SlowReloadTest); the first admission moves it on.
        NonceTable table = new NonceTable(capacity, (int) Math.min(loaded.unexpired(), Integer.MAX_VALUE),
                Math.floorDiv(now, 1000));
        try {
            loaded.journal().start((expiryMillis, nonce) -> table.reload(hash.hash(nonce), expirySecond(expiryMillis)),
                    now);
        } catch (IOException | RuntimeException e) {
            table.close();
            loaded.journal().close();
            throw new AuthException("cannot rewrite the nonce journal in " + dataDir, e);
        }
        NonceMemory memory = new NonceMemory(retention, durableWait, maxPendingBytes, clock, loaded.since(),
                loaded.journal(), hash, table);
        if (memory.table.live() > capacity) {
            LOG.log(System.Logger.Level.WARNING, "auth: the nonce journal holds {0} unexpired nonces, more than the "
                    + "capacity {1}; new requests are refused as busy until they expire", memory.table.live(),
                    capacity);
        }
        return memory;
    }

    /**
     * Records a nonce if it is new; for a persistent memory, returns {@code ADMITTED} only once the
     * nonce is forced to disk. Blocks at most the durable wait.
     *
     * @param nonce     the nonce, already syntax-checked
     * @param timestamp the request timestamp, already checked against the acceptance window
     * @return the admission
     */
    public Admission admit(String nonce, Instant timestamp) {
        Admission a = decide(nonce, timestamp);
        if (a == Admission.FULL) {
            full.increment();
        } else if (a == Admission.STALLED) {
            stalled.increment();
        }
        return a;
    }

    /** @return admissions refused as {@link Admission#FULL} since the memory was made */
    public long refusedFull() {
        return full.sum();
    }

    /** @return admissions refused as {@link Admission#STALLED} since the memory was made */
    public long refusedStalled() {
        return stalled.sum();
    }

    private Admission decide(String nonce, Instant timestamp) {
        if (timestamp.isBefore(since)) {
            return Admission.BEFORE_MEMORY;
        }
        long expiryMillis = timestamp.toEpochMilli() + retentionMillis;
        long key = hash.hash(nonce);
        byte[] line = journal == null ? null
                : (expiryMillis + " " + nonce + "\n").getBytes(StandardCharsets.US_ASCII);
        Batch batch;
        lock.lock();
        try {
            if (state != State.OPEN) {
                return Admission.FAILED;
            }
            if (line != null && open.length + line.length > maxPendingBytes) {
                return Admission.STALLED;
            }
            table.advance(Math.floorDiv(clock.millis(), 1000));
            long expirySecond = expirySecond(expiryMillis);
            if (!table.accepts(expirySecond)) {
                return Admission.BEFORE_MEMORY; // it would be forgotten at once: too old to vouch for
            }
            switch (table.insert(key, expirySecond)) {
                case PRESENT -> {
                    return Admission.REPLAYED;
                }
                case FULL -> {
                    return Admission.FULL;
                }
                case INSERTED -> {
                    // remembered from now on, whatever becomes of the journal line
                }
            }
            if (line == null) {
                return Admission.ADMITTED;
            }
            batch = open;
            batch.add(line, expiryMillis);
            if (batch.count == 1) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
        try {
            if (!batch.done.await(durableWaitNanos, TimeUnit.NANOSECONDS)) {
                return Admission.STALLED;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Admission.STALLED;
        }
        return batch.outcome;
    }

    /**
     * The journal thread. Should it ever die of an error (e.g. out of memory), the memory is broken:
     * what waits is refused and so is everything later, instead of every request stalling.
     */
    private void runJournal() {
        boolean finished = false;
        try {
            writeBatches();
            finished = true;
        } finally {
            if (!finished) {
                Batch orphan;
                lock.lock();
                try {
                    if (state == State.OPEN) {
                        state = State.BROKEN;
                    }
                    orphan = open;
                    open = new Batch();
                } finally {
                    lock.unlock();
                }
                orphan.complete(Admission.FAILED);
                LOG.log(System.Logger.Level.ERROR, "auth: the nonce journal thread died; every request is refused "
                        + "until the agent is restarted");
            }
        }
    }

    /** One write and one force per batch, until closed or broken. */
    private void writeBatches() {
        while (true) {
            Batch batch;
            boolean write;
            lock.lock();
            try {
                while (open.count == 0 && state == State.OPEN) {
                    work.awaitUninterruptibly();
                }
                if (open.count == 0) {
                    return;
                }
                batch = open;
                open = new Batch();
                write = state != State.BROKEN;
            } finally {
                lock.unlock();
            }
            if (!write) {
                batch.complete(Admission.FAILED);
                continue;
            }
            try {
                journal.append(batch.bytes, batch.length, batch.maxExpiryMillis, clock.millis());
                batch.complete(Admission.ADMITTED);
                if (noSpace) {
                    noSpace = false;
                    LOG.log(System.Logger.Level.WARNING, "auth: the nonce journal is written again");
                }
            } catch (JournalDisk.NotWritten e) {
                // Nothing of the batch is in the journal and nothing before it was touched: its requests are
                // refused as busy (their nonces stay remembered in memory) and the next batch tries again.
                if (!noSpace) {
                    noSpace = true;
                    LOG.log(System.Logger.Level.ERROR, "auth: the nonce journal cannot be written (is the data "
                            + "directory full?); requests are refused as busy until it can", e);
                }
                batch.complete(Admission.STALLED);
            } catch (IOException | RuntimeException e) {
                lock.lock();
                try {
                    if (state == State.OPEN) {
                        state = State.BROKEN;
                    }
                } finally {
                    lock.unlock();
                }
                LOG.log(System.Logger.Level.ERROR, "auth: the nonce journal could not be written to disk; the "
                        + batch.count + " requests waiting for it are refused, and so is every later request "
                        + "until the agent is restarted", e);
                batch.complete(Admission.FAILED);
            }
        }
    }

    private static long expirySecond(long expiryMillis) {
        return Math.floorDiv(expiryMillis + 999, 1000);
    }

    /** @return the number of unexpired nonces remembered */
    public int size() {
        lock.lock();
        try {
            table.advance(Math.floorDiv(clock.millis(), 1000));
            return table.live();
        } finally {
            lock.unlock();
        }
    }

    /** @return the instant before which the memory knows nothing */
    public Instant since() {
        return since;
    }

    /**
     * Stops admitting (later admissions are {@code FAILED}), frees the table, writes and forces what is
     * pending (waiting at most {@link #CLOSE_WAIT}) and releases the journal. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (state == State.OPEN) {
                state = State.CLOSED;
            }
            // No admission reaches the table any more: each one checks the state under this lock first.
            table.close();
            work.signalAll();
        } finally {
            lock.unlock();
        }
        if (journalThread != null) {
            try {
                if (!journalThread.join(CLOSE_WAIT)) {
                    LOG.log(System.Logger.Level.WARNING, "auth: the nonce journal did not finish writing within "
                            + CLOSE_WAIT + "; closing it anyway");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (journal != null) {
            journal.close();
        }
    }
}
