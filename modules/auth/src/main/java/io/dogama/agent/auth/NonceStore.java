package io.dogama.agent.auth;

import io.dogama.agent.auth.internal.Admission;
import io.dogama.agent.auth.internal.NonceMemory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The bounded memory of accepted request nonces (SPEC section 3, step 4).
 *
 * <p>Each accepted nonce is remembered until its request timestamp plus {@link #RETENTION}, which is
 * twice the acceptance window, rounded up to the next whole second: any replay of it is either
 * remembered or already stale. At most {@code capacity} unexpired nonces are held; when full, new
 * requests are answered {@code busy} and no unexpired nonce is ever dropped to make room. Thread-safe;
 * a concurrent second use of a nonce is refused at once, even while the first one is being made durable.
 *
 * <p>Memory: outside the Java heap, growing with the request rate up to 18 bytes per nonce of capacity
 * (keyed 64-bit fingerprints in an open-addressing table at a load of at most about 0.73, plus a
 * 4-byte expiry second per slot): 36 MB (34.3 MiB) for {@link #DEFAULT_CAPACITY}, 180 MB for
 * {@link #MAX_CAPACITY}; freed by {@link #close}.
 *
 * <p>Two kinds exist. {@link #persistent} keeps a journal in the data directory; a nonce is accepted
 * only once the journal line that holds it has been forced to disk, so a restarted agent (after a
 * clean stop, a {@code kill -9} or a power loss) still refuses replays of every request it accepted.
 * Concurrent admissions share one {@code fsync} (group commit): while one force runs, the nonces that
 * arrive join the next one. An admission that is not on disk within {@link #DURABLE_WAIT} is refused
 * {@code busy}; if a write or force fails, the requests it covered are refused {@code internal_error},
 * the failure is logged at ERROR, and every later request too until the agent is restarted. This is
 * the production choice because a restart is then invisible to a client. {@link #inMemory} forgets
 * everything with the process and therefore refuses every request timestamped before its creation as
 * stale; a fresh persistent journal does the same, since it cannot know what an earlier, lost journal
 * held.
 */
public final class NonceStore implements AutoCloseable {
    /**
     * Default capacity: 2,000,000 unexpired nonces, enough for 30,000 requests per second sustained over
     * the whole retention (30,000 &times; 61 s = 1,830,000, the extra second being the rounding to whole
     * seconds) with room to spare; 36 MB of memory.
     */
    public static final int DEFAULT_CAPACITY = 2_000_000;
    /** Largest accepted capacity, 10,000,000. */
    public static final int MAX_CAPACITY = 10_000_000;
    /** How long after its request timestamp a nonce is remembered: twice {@link Authenticator#WINDOW}, 60 s. */
    public static final Duration RETENTION = Authenticator.WINDOW.multipliedBy(2);
    /**
     * How long an accepted request waits for the {@code fsync} that makes its nonce durable before it
     * is refused {@code busy} instead, 2 s (a healthy disk takes milliseconds).
     */
    public static final Duration DURABLE_WAIT = Duration.ofSeconds(2);

    private final NonceMemory memory;

    private NonceStore(NonceMemory memory) {
        this.memory = memory;
    }

    /**
     * A memory that lives as long as the process.
     *
     * @param capacity 1 to {@value #MAX_CAPACITY}
     * @param clock    the clock that decides expiry and, at creation, the start of the memory
     * @return the store
     * @throws IllegalArgumentException for a capacity out of range
     */
    public static NonceStore inMemory(int capacity, Clock clock) {
        checkCapacity(capacity);
        return new NonceStore(NonceMemory.inMemory(capacity, RETENTION, Objects.requireNonNull(clock, "clock")));
    }

    /**
     * A memory journaled in {@code dataDir} (files {@code nonces.journal}, {@code nonces.journal.N} and
     * {@code nonces.lock}, each created mode 0600), reloaded here.
     *
     * @param dataDir  an existing directory owned by the agent
     * @param capacity 1 to {@value #MAX_CAPACITY}
     * @param clock    the clock
     * @return the store; {@link #close()} releases the journal
     * @throws AuthException            if the directory is missing, the journal is corrupt, locked by another
     *                                  process, or cannot be read or written
     * @throws IllegalArgumentException for a capacity out of range
     */
    public static NonceStore persistent(Path dataDir, int capacity, Clock clock) throws AuthException {
        checkCapacity(capacity);
        return new NonceStore(NonceMemory.persistent(Objects.requireNonNull(dataDir, "dataDir"), capacity, RETENTION,
                Objects.requireNonNull(clock, "clock")));
    }

    private static void checkCapacity(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("auth: nonce capacity must be 1 to " + MAX_CAPACITY);
        }
    }

    /** For {@link Authenticator}; blocks at most {@link #DURABLE_WAIT}. */
    Admission admit(String nonce, Instant timestamp) {
        return memory.admit(nonce, timestamp);
    }

    /** @return the number of unexpired nonces held now */
    public int size() {
        return memory.size();
    }

    /** @return requests refused {@code busy} because the memory held its capacity (raise it, SPEC section 3) */
    public long refusedFull() {
        return memory.refusedFull();
    }

    /** @return requests refused {@code busy} because their nonce was not on disk in time (look at the disk) */
    public long refusedStalled() {
        return memory.refusedStalled();
    }

    /** @return the instant before which this memory knows nothing; older requests are refused as stale */
    public Instant rememberedSince() {
        return memory.since();
    }

    /**
     * Writes what is pending, then releases the journal and its lock, if any. Idempotent; admitting
     * afterwards is a programming error (it is refused).
     */
    @Override
    public void close() {
        memory.close();
    }
}
