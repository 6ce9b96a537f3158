package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.AuthException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Bounded memory of accepted nonces. Each nonce is kept until its request timestamp plus the
 * retention period; when the memory holds {@code capacity} unexpired nonces it refuses new ones
 * ({@link Admission#FULL}) rather than forgetting one. Thread-safe: every operation holds the
 * monitor, including the journal write, so that a nonce is durable before anyone learns it was
 * admitted.
 */
public final class NonceMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NonceMemory.class.getName());

    private final int capacity;
    private final long retentionMillis;
    private final Clock clock;
    private final Instant since;
    private final NonceJournal journal;
    private final Map<String, Long> expiries = new HashMap<>();
    private final PriorityQueue<Entry> byExpiry = new PriorityQueue<>(Comparator.comparingLong(Entry::expiryMillis));

    /** A remembered nonce and the epoch millisecond after which it may be forgotten. */
    record Entry(long expiryMillis, String nonce) {
    }

    private NonceMemory(int capacity, Duration retention, Clock clock, Instant since, NonceJournal journal,
            List<Entry> entries) {
        this.capacity = capacity;
        this.retentionMillis = retention.toMillis();
        this.clock = clock;
        this.since = since;
        this.journal = journal;
        for (Entry e : entries) {
            expiries.put(e.nonce(), e.expiryMillis());
            byExpiry.add(e);
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
        return new NonceMemory(capacity, retention, clock, clock.instant(), null, List.of());
    }

    /**
     * A memory backed by an append-only journal in {@code dataDir}, reloaded on start.
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
        long now = clock.millis();
        NonceJournal.Loaded loaded = NonceJournal.open(dataDir, clock.instant());
        List<Entry> live = new ArrayList<>();
        for (Entry e : loaded.entries()) {
            if (e.expiryMillis() >= now) {
                live.add(e);
            }
        }
        try {
            loaded.journal().rewrite(live);
        } catch (IOException e) {
            loaded.journal().close();
            throw new AuthException("cannot rewrite the nonce journal in " + dataDir, e);
        }
        if (live.size() > capacity) {
            LOG.log(System.Logger.Level.WARNING, "auth: the nonce journal holds {0} unexpired nonces, more than the "
                    + "capacity {1}; new requests are refused as busy until they expire", live.size(), capacity);
        }
        return new NonceMemory(capacity, retention, clock, loaded.since(), loaded.journal(), live);
    }

    /**
     * Records a nonce if it is new.
     *
     * @param nonce     the nonce, already syntax-checked
     * @param timestamp the request timestamp, already checked against the acceptance window
     * @return the admission
     */
    public synchronized Admission admit(String nonce, Instant timestamp) {
        if (timestamp.isBefore(since)) {
            return Admission.BEFORE_MEMORY;
        }
        purge(clock.millis());
        if (expiries.containsKey(nonce)) {
            return Admission.REPLAYED;
        }
        if (expiries.size() >= capacity) {
            return Admission.FULL;
        }
        Entry entry = new Entry(timestamp.toEpochMilli() + retentionMillis, nonce);
        if (journal != null) {
            try {
                journal.append(entry);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "auth: cannot persist a nonce; refusing the request", e);
                return Admission.FAILED;
            }
            compactIfLarge(entry);
        }
        expiries.put(nonce, entry.expiryMillis());
        byExpiry.add(entry);
        return Admission.ADMITTED;
    }

    private void compactIfLarge(Entry added) {
        if (journal.appendedLines() <= Math.max(NonceJournal.MIN_COMPACT_LINES, 2L * (expiries.size() + 1))) {
            return;
        }
        List<Entry> live = new ArrayList<>(byExpiry);
        live.add(added);
        try {
            journal.rewrite(live);
        } catch (IOException e) {
            // The nonce is already durable in the old journal, which stays in use; only the file grows.
            LOG.log(System.Logger.Level.WARNING, "auth: cannot compact the nonce journal", e);
        }
    }

    /** @return the number of unexpired nonces remembered */
    public synchronized int size() {
        purge(clock.millis());
        return expiries.size();
    }

    /** @return the instant before which the memory knows nothing */
    public Instant since() {
        return since;
    }

    private void purge(long nowMillis) {
        Entry head;
        while ((head = byExpiry.peek()) != null && head.expiryMillis() < nowMillis) {
            byExpiry.poll();
            expiries.remove(head.nonce());
        }
    }

    @Override
    public synchronized void close() {
        if (journal != null) {
            journal.close();
        }
    }
}
