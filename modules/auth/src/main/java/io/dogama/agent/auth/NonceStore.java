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
 * twice the acceptance window: any replay of it is either remembered or already stale. At most
 * {@code capacity} unexpired nonces are held; when full, new requests are answered {@code busy}
 * and no unexpired nonce is ever dropped to make room. Thread-safe.
 *
 * <p>Two kinds exist. {@link #persistent} keeps a journal in the data directory, forced to disk
 * before a request is accepted, so a restarted agent still refuses replays of requests accepted
 * before it stopped; this is the production choice because a restart is then invisible to a client.
 * {@link #inMemory} forgets everything with the process and therefore refuses every request
 * timestamped before its creation as stale; a fresh persistent journal does the same, since it
 * cannot know what an earlier, lost journal held.
 */
public final class NonceStore implements AutoCloseable {
    /** Default capacity: 100,000 unexpired nonces (about 1,100 requests per second sustained for a minute). */
    public static final int DEFAULT_CAPACITY = 100_000;
    /** Largest accepted capacity, 10,000,000. */
    public static final int MAX_CAPACITY = 10_000_000;
    /** How long after its request timestamp a nonce is remembered: twice {@link Authenticator#WINDOW}, 60 s. */
    public static final Duration RETENTION = Authenticator.WINDOW.multipliedBy(2);

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
     * A memory journaled in {@code dataDir} (files {@code nonces.journal} and {@code nonces.lock}, mode
     * 0600), reloaded here.
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

    /** For {@link Authenticator}. */
    Admission admit(String nonce, Instant timestamp) {
        return memory.admit(nonce, timestamp);
    }

    /** @return the number of unexpired nonces held now */
    public int size() {
        return memory.size();
    }

    /** @return the instant before which this memory knows nothing; older requests are refused as stale */
    public Instant rememberedSince() {
        return memory.since();
    }

    /** Releases the journal and its lock, if any. Idempotent in effect; admitting afterwards is a programming error. */
    @Override
    public void close() {
        memory.close();
    }
}
