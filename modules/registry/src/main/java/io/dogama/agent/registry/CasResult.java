package io.dogama.agent.registry;

import java.util.Objects;

/**
 * The outcome of a registry write. Every write is all-or-nothing: anything but {@link Stored} or
 * {@link Removed} means nothing was written.
 */
public sealed interface CasResult
        permits CasResult.Stored, CasResult.Removed, CasResult.Conflict, CasResult.Absent, CasResult.Tampered,
        CasResult.Full {

    /** @return the instance ID the write was about */
    String instanceId();

    /**
     * The record was written.
     *
     * @param record     what is now stored
     * @param generation its new compare-and-set token (1 after an insert, previous + 1 after a replace)
     */
    record Stored(InstanceRecord record, long generation) implements CasResult {
        /** Rejects null and a non-positive generation. */
        public Stored {
            Objects.requireNonNull(record, "record");
            if (generation < 1) {
                throw new IllegalArgumentException("registry: generation must be positive");
            }
        }

        @Override
        public String instanceId() {
            return record.instanceId();
        }
    }

    /**
     * The record was removed.
     *
     * @param instanceId its ID
     */
    record Removed(String instanceId) implements CasResult {
        /** Rejects null. */
        public Removed {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * An insert found a record already there, or a replace / remove found another generation than the
     * expected one (someone else wrote first). Re-read and decide again.
     *
     * @param instanceId        the ID
     * @param currentGeneration the generation stored now
     */
    record Conflict(String instanceId, long currentGeneration) implements CasResult {
        /** Rejects null. */
        public Conflict {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * A replace or remove found no record under the ID.
     *
     * @param instanceId the ID
     */
    record Absent(String instanceId) implements CasResult {
        /** Rejects null. */
        public Absent {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * The stored record failed authentication; it was left untouched, and it can never be the base of
     * a compare-and-set.
     *
     * @param instanceId the ID
     */
    record Tampered(String instanceId) implements CasResult {
        /** Rejects null. */
        public Tampered {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * An insert would exceed the administrator's instance limit.
     *
     * @param instanceId the ID that was not inserted
     * @param limit      the limit
     */
    record Full(String instanceId, int limit) implements CasResult {
        /** Rejects null. */
        public Full {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }
}
