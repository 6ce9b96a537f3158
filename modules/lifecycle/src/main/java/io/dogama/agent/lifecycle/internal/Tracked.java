package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.util.Optional;

/**
 * One instance's record as an operation last read or wrote it, with the registry generation that
 * every write compares against. Another writer in between (there can be none inside this process:
 * operations on one instance are exclusive) makes the write fail as {@code instance_busy}.
 *
 * <p>Its writes ({@link #persist}, {@link #mark}, {@link #remove}) are called by the two machines
 * only: {@link Transitions} persists every state, {@link StepMachine} every step marker (an ArchUnit
 * rule holds every other class to that).
 */
final class Tracked {
    private final Registry registry;
    private InstanceRecord record;
    private long generation;
    /** False for a create's intent that is not inserted yet. */
    private boolean stored;

    private Tracked(Registry registry, InstanceRecord record, long generation, boolean stored) {
        this.registry = registry;
        this.record = record;
        this.generation = generation;
        this.stored = stored;
    }

    private Tracked(Registry registry, InstanceRecord record, long generation) {
        this(registry, record, generation, true);
    }

    /**
     * A create's intent, not in the registry yet: the machine's {@code CREATE} transition inserts it.
     *
     * @param registry the registry
     * @param record   the record to insert (its state is replaced by the machine's answer)
     * @return it, not stored
     */
    static Tracked intent(Registry registry, InstanceRecord record) {
        return new Tracked(registry, record, -1, false);
    }

    /** @return false for an intent not inserted yet, or a record this operation removed */
    boolean stored() {
        return stored;
    }

    /**
     * @param registry the registry
     * @param id       a syntactically valid instance ID
     * @return the record
     * @throws Abort             {@code unknown_instance}, or {@code intervention_required} for a
     *                           record whose MAC fails
     * @throws RegistryException if the registry failed
     */
    static Tracked load(Registry registry, String id) throws Abort, RegistryException {
        return switch (registry.get(id)) {
            case Lookup.Found f -> new Tracked(registry, f.record(), f.generation());
            case Lookup.Absent a -> throw new Abort(ProblemCode.UNKNOWN_INSTANCE);
            case Lookup.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        };
    }

    /**
     * @param registry the registry
     * @param found    a verified record
     * @return it, tracked
     */
    static Tracked of(Registry registry, Lookup.Found found) {
        return new Tracked(registry, found.record(), found.generation());
    }

    /**
     * Inserts the intent, or writes over the stored record (compare-and-set).
     *
     * @param next the new content
     * @throws Abort             {@code busy} when the registry is full, {@code instance_busy} if
     *                           someone else wrote (or a record appeared), {@code intervention_required}
     *                           if the stored record no longer verifies (or is forged),
     *                           {@code internal_error} if it vanished
     * @throws RegistryException if the registry failed (nothing can be concluded: {@link #reload()})
     */
    void persist(InstanceRecord next) throws Abort, RegistryException {
        if (stored) {
            write(next);
            return;
        }
        switch (registry.insert(next)) {
            case CasResult.Stored s -> {
                record = s.record();
                generation = s.generation();
                stored = true;
            }
            case CasResult.Full f -> throw new Abort(ProblemCode.BUSY);
            case CasResult.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            default -> throw new Abort(ProblemCode.INSTANCE_BUSY);
        }
    }

    InstanceRecord record() {
        return record;
    }

    String id() {
        return record.instanceId();
    }

    InstanceState state() {
        return record.state();
    }

    /**
     * Compare-and-set write.
     *
     * @param next the new content
     * @throws Abort             {@code instance_busy} if someone else wrote, {@code intervention_required}
     *                           if the stored record no longer verifies, {@code internal_error} if it vanished
     * @throws RegistryException if the registry failed (nothing can be concluded: {@link #reload()})
     */
    private void write(InstanceRecord next) throws Abort, RegistryException {
        switch (registry.replace(generation, next)) {
            case CasResult.Stored s -> {
                record = s.record();
                generation = s.generation();
            }
            case CasResult.Conflict c -> throw new Abort(ProblemCode.INSTANCE_BUSY);
            case CasResult.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            default -> throw new Abort(ProblemCode.INTERNAL_ERROR);
        }
    }

    /**
     * Writes the same record with another step marker.
     *
     * @param step the step about to act, or empty to clear the marker
     * @throws Abort             as {@link #write}
     * @throws RegistryException as {@link #write}
     */
    void mark(Optional<Step> step) throws Abort, RegistryException {
        write(record.withStep(step.map(Step::marker)));
    }

    /**
     * Ends the registration.
     *
     * @throws Abort             as {@link #write}
     * @throws RegistryException if the registry failed
     */
    void remove() throws Abort, RegistryException {
        switch (registry.remove(record.instanceId(), generation)) {
            case CasResult.Removed r -> stored = false;
            case CasResult.Conflict c -> throw new Abort(ProblemCode.INSTANCE_BUSY);
            case CasResult.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            default -> throw new Abort(ProblemCode.INTERNAL_ERROR);
        }
    }

    /**
     * Reads the record again, after a write whose outcome is unknown.
     *
     * @return false if there is no record any more
     * @throws Abort             {@code intervention_required} if it no longer verifies
     * @throws RegistryException if the registry failed
     */
    boolean reload() throws Abort, RegistryException {
        switch (registry.get(record.instanceId())) {
            case Lookup.Found f -> {
                record = f.record();
                generation = f.generation();
                stored = true;
                return true;
            }
            case Lookup.Absent a -> {
                stored = false;
                return false;
            }
            case Lookup.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
    }
}
