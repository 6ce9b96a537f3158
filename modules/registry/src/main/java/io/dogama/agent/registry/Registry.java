package io.dogama.agent.registry;

import io.dogama.agent.registry.internal.LogRegistry;
import java.nio.file.Path;
import java.util.List;

/**
 * The durable, authenticated instance registry of SPEC section 9: one append-only file
 * ({@code <dataDir>/registry.dat}) of {@link InstanceRecord}s, each with an HMAC-SHA-256 under the
 * agent-local key {@code <dataDir>/registry.key} (32 random bytes, mode 0600, generated on first start).
 *
 * <p><b>Concurrency.</b> Thread-safe. Writes are atomic compare-and-set operations on the registry's
 * {@code generation} token, which every write bumps (distinct from the instance's API
 * {@link InstanceRecord#revision() revision}). One process at a time: {@link #open} takes an exclusive
 * lock on {@code <dataDir>/registry.lock}.
 *
 * <p><b>Durability.</b> A write is appended to the file and forced to the disk before its method returns, and
 * only then seen by any reader: it survives the death of the process (even SIGKILL) and a power loss or kernel
 * crash. A write a crash cuts short never returned; the next open drops it and the instance reads as its
 * previous version.
 *
 * <p><b>Failures.</b> Expected outcomes (absent, conflict, tampered, full) are values; a
 * {@link RegistryException} means the registry itself failed (I/O, closed registry) and nothing can be
 * concluded about the record.
 */
public interface Registry extends AutoCloseable {

    /** Smallest accepted instance limit. */
    int MIN_INSTANCES = 1;
    /** Largest accepted instance limit (the administrator's default is 200, SPEC section 11). */
    int MAX_INSTANCES = 10_000;

    /**
     * Opens the registry in {@code dataDir}, creating it (and its key) on first start, and reads it whole. The
     * last write, if a crash cut it short, is dropped (it never returned); damage anywhere else refuses the open
     * and leaves the file as it is. A record whose MAC or content fails reads as {@link Lookup.Tampered}.
     *
     * @param dataDir      the agent's data directory; must exist and be a directory
     * @param maxInstances the administrator's instance limit, {@value #MIN_INSTANCES} to
     *                     {@value #MAX_INSTANCES}; {@link #insert} answers {@link CasResult.Full} beyond it
     * @return the open registry
     * @throws RegistryException        if the data directory is missing; the key file is unreadable, not
     *                                  32 bytes, or readable by group/others; the key is missing while a
     *                                  registry file exists; the registry file is missing while the key
     *                                  exists (unless its creation was cut short); the file is damaged, not as
     *                                  the registry left it, or not a registry; the key does not match the
     *                                  registry; another process holds the registry. Never starts empty over an
     *                                  existing registry.
     * @throws IllegalArgumentException if {@code maxInstances} is out of range
     */
    static Registry open(Path dataDir, int maxInstances) throws RegistryException {
        return LogRegistry.open(dataDir, maxInstances);
    }

    /**
     * @param instanceId the instance ID
     * @return the verified record, {@link Lookup.Absent}, or {@link Lookup.Tampered}
     * @throws RegistryException if the registry failed
     */
    Lookup get(String instanceId) throws RegistryException;

    /**
     * @return every stored entry as {@link Lookup.Found} or {@link Lookup.Tampered}, sorted by instance ID;
     *         unmodifiable, and possibly the very list of an earlier call when nothing changed since
     * @throws RegistryException if the registry failed
     */
    List<Lookup> all() throws RegistryException;

    /**
     * Stores a new record, only if no record exists under its ID; its generation becomes 1.
     *
     * @param record the record
     * @return {@link CasResult.Stored}, {@link CasResult.Conflict} (a record exists),
     *         {@link CasResult.Tampered} (a forged entry sits under the ID) or {@link CasResult.Full}
     * @throws RegistryException if the registry failed
     */
    CasResult insert(InstanceRecord record) throws RegistryException;

    /**
     * Atomically replaces the record under {@code next.instanceId()}, only if the stored record verifies
     * and has generation {@code expectedGeneration}; the new generation is {@code expectedGeneration + 1}.
     *
     * @param expectedGeneration the generation the caller read
     * @param next               the new content
     * @return {@link CasResult.Stored}, {@link CasResult.Conflict}, {@link CasResult.Absent} or
     *         {@link CasResult.Tampered}
     * @throws RegistryException if the registry failed
     */
    CasResult replace(long expectedGeneration, InstanceRecord next) throws RegistryException;

    /**
     * Atomically removes the record, only if it verifies and has generation {@code expectedGeneration}.
     *
     * @param instanceId         the instance ID
     * @param expectedGeneration the generation the caller read
     * @return {@link CasResult.Removed}, {@link CasResult.Conflict}, {@link CasResult.Absent} or
     *         {@link CasResult.Tampered}
     * @throws RegistryException if the registry failed
     */
    CasResult remove(String instanceId, long expectedGeneration) throws RegistryException;

    /** @return the administrator's instance limit this registry was opened with */
    int maxInstances();

    /** Closes the file and releases the process lock. Idempotent; later calls fail with {@link RegistryException}. */
    @Override
    void close();
}
