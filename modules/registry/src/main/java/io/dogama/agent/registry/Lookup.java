package io.dogama.agent.registry;

import java.util.Objects;

/**
 * What the registry holds under one instance ID. Only a {@link Found} may be acted on; a
 * {@link Tampered} record must never be (SPEC section 9: the instance reports
 * {@code intervention_required}).
 */
public sealed interface Lookup permits Lookup.Found, Lookup.Absent, Lookup.Tampered {

    /** @return the instance ID (the registry key) this answer is about */
    String instanceId();

    /**
     * A record whose MAC verified and whose content parsed.
     *
     * @param record     the record
     * @param generation the registry's compare-and-set token of this stored version, at least 1; pass it
     *                   to {@link Registry#replace} or {@link Registry#remove}
     */
    record Found(InstanceRecord record, long generation) implements Lookup {
        /** Rejects null and a non-positive generation. */
        public Found {
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
     * No record under this ID (also the answer for a syntactically invalid ID, which can never be stored).
     *
     * @param instanceId the ID asked for
     */
    record Absent(String instanceId) implements Lookup {
        /** Rejects null. */
        public Absent {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }

    /**
     * A stored entry that failed authentication (wrong MAC, wrong key, moved under another ID) or could
     * not be parsed. Its content is never returned.
     *
     * @param instanceId the key the entry is stored under (may be an invalid ID if the key itself was forged)
     */
    record Tampered(String instanceId) implements Lookup {
        /** Rejects null. */
        public Tampered {
            Objects.requireNonNull(instanceId, "instanceId");
        }
    }
}
