package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import java.util.Optional;

/**
 * The machine's states: the persisted {@link InstanceState}s plus {@link #ABSENT}, "no record",
 * which is where an instance starts and where a finished delete (or a dropped create intent) ends.
 */
enum Phase {
    ABSENT(null),
    CREATING(InstanceState.CREATING),
    CREATED(InstanceState.CREATED),
    RUNNING(InstanceState.RUNNING),
    STOPPED(InstanceState.STOPPED),
    REPLACING(InstanceState.REPLACING),
    ROLLING_BACK(InstanceState.ROLLING_BACK),
    INTERVENTION_REQUIRED(InstanceState.INTERVENTION_REQUIRED),
    DELETING(InstanceState.DELETING);

    private final InstanceState persisted;

    Phase(InstanceState persisted) {
        this.persisted = persisted;
    }

    /** @return the state stored in the registry, empty for ABSENT */
    Optional<InstanceState> persisted() {
        return Optional.ofNullable(persisted);
    }

    /**
     * @return true for the states in which no operation is left under way and the record names the instance's one
     *         container: what a create's repeat reports as the instance, and what stats reads
     */
    boolean settled() {
        return this == CREATED || this == RUNNING || this == STOPPED;
    }

    static Phase of(InstanceState s) {
        return valueOf(s.name());
    }
}
