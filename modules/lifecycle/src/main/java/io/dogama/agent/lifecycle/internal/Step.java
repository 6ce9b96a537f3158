package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Phase.ABSENT;
import static io.dogama.agent.lifecycle.internal.Phase.CREATED;
import static io.dogama.agent.lifecycle.internal.Phase.CREATING;
import static io.dogama.agent.lifecycle.internal.Phase.DELETING;
import static io.dogama.agent.lifecycle.internal.Phase.INTERVENTION_REQUIRED;
import static io.dogama.agent.lifecycle.internal.Phase.REPLACING;
import static io.dogama.agent.lifecycle.internal.Phase.ROLLING_BACK;
import static io.dogama.agent.lifecycle.internal.Phase.RUNNING;
import static io.dogama.agent.lifecycle.internal.Phase.STOPPED;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * THE step protocol: every step of create, replace, rollback and delete, each with the one Docker
 * (or registry) effect it may have, the container it acts on, when it acts at all, the states the
 * registry may hold while it acts and the marker persisted before it; and {@link #decide}, the one
 * pure function that says what follows a step's outcome (done, engine refused, engine silent,
 * agent crash), and {@link #recover}, what the start-up reconciliation does from a persisted
 * (state, marker). {@link Transitions} owns the states; this enum owns the steps between them. The
 * operations ({@link Creates}, {@link Replaces}, {@link Deletes}, {@link Reconciler}) follow these
 * answers; the Promela model ({@code PromelaModel}, test code) and the tests are generated from them.
 *
 * <p>The fault seam ({@link Faults}) is called with a step right before the step acts, so a test can
 * fail or halt the operation at exactly that point. {@link #marker()} is the registry's
 * {@code step} text for a step; it is only ever read back through {@link #ofMarker}, never compared
 * as text.
 */
enum Step {
    // create (SPEC 10: intent, container, ID; a failed create is undone)
    /** Insert the {@code CREATING} intent. */
    CREATE_PERSIST_INTENT("create:persist", Family.CREATE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(ABSENT), null),
    /** Create the container {@code dogama-X}. */
    CREATE_CONTAINER("create:container", Family.CREATE, Effect.CREATE, Target.CURRENT, Guard.ALWAYS,
            EnumSet.of(CREATING), "CREATE_CONTAINER"),
    /** Record the container ID and {@code CREATED}. */
    CREATE_COMMIT("create:commit", Family.CREATE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(CREATING), "CREATE_CONTAINER"),
    /** Undo: remove the container this create made (known by its ID, or found by the crash-window rule). */
    CREATE_UNDO_REMOVE("create:undo-remove", Family.CREATE, Effect.REMOVE, Target.CURRENT, Guard.CONTAINER_KNOWN,
            EnumSet.of(CREATING), "CREATE_CONTAINER"),
    /** Undo: drop the intent. */
    CREATE_UNDO_DROP("create:undo-drop", Family.CREATE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(CREATING), "CREATE_CONTAINER"),

    // replace
    /** Persist {@code REPLACING} with the prior plan and container. */
    REPLACE_PERSIST_INTENT("replace:persist", Family.REPLACE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(CREATED, RUNNING, STOPPED), null),
    /** Stop the old container. */
    REPLACE_STOP_OLD("replace:stop-old", Family.REPLACE, Effect.STOP, Target.OLD, Guard.OLD_RECORDED,
            EnumSet.of(REPLACING), "REPLACE_STOP_OLD"),
    /** Rename the old container to {@code dogama-X-r<rev>}. */
    REPLACE_RENAME_OLD("replace:rename-old", Family.REPLACE, Effect.RENAME, Target.OLD, Guard.OLD_RECORDED,
            EnumSet.of(REPLACING), "REPLACE_RENAME_OLD"),
    /** Create the new container {@code dogama-X}. */
    REPLACE_CREATE_NEW("replace:create-new", Family.REPLACE, Effect.CREATE, Target.NEW, Guard.ALWAYS,
            EnumSet.of(REPLACING), "REPLACE_CREATE_NEW"),
    /** Record the new container's ID. */
    REPLACE_RECORD_NEW("replace:record-new", Family.REPLACE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(REPLACING), "REPLACE_CREATE_NEW"),
    /** Start the new container (only if the old one was running). */
    REPLACE_START_NEW("replace:start-new", Family.REPLACE, Effect.START, Target.NEW, Guard.WAS_RUNNING,
            EnumSet.of(REPLACING), "REPLACE_START_NEW"),
    /** Remove the old container. */
    REPLACE_REMOVE_OLD("replace:remove-old", Family.REPLACE, Effect.REMOVE, Target.OLD, Guard.OLD_RECORDED,
            EnumSet.of(REPLACING), "REPLACE_REMOVE_OLD"),
    /** Commit revision + 1 and drop the prior. */
    REPLACE_COMMIT("replace:commit", Family.REPLACE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(REPLACING), "REPLACE_REMOVE_OLD"),
    /**
     * Start-up only, once the new container is recorded: is the prior container gone and the new one ours? Then
     * the replace is finished (its steps again, each a no-op where it is done), else rolled back.
     */
    REPLACE_RESUME("replace:resume", Family.REPLACE, Effect.LOOK, Target.ALL, Guard.ALWAYS,
            EnumSet.of(REPLACING), null),

    // rollback (of a replace that did not commit)
    /**
     * Persist {@code ROLLING_BACK} (folding in a new container ID the request knew or the crash window hid); refused
     * as not safe, the fold written with the record still {@code REPLACING}, when a start recovering
     * {@code REPLACING} finds the recorded prior container gone.
     */
    ROLLBACK_PERSIST("rollback:persist", Family.ROLLBACK, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(REPLACING), null),
    /** Decide whether the prior can come back (before removing anything), then remove the new container. */
    ROLLBACK_REMOVE_NEW("rollback:remove-new", Family.ROLLBACK, Effect.REMOVE, Target.CURRENT,
            Guard.CURRENT_RECORDED, EnumSet.of(ROLLING_BACK), "ROLLBACK_REMOVE_NEW"),
    /** Rename the old container back to {@code dogama-X}. */
    ROLLBACK_RENAME_OLD("rollback:rename-old", Family.ROLLBACK, Effect.RENAME, Target.OLD, Guard.OLD_PRESENT,
            EnumSet.of(ROLLING_BACK), "ROLLBACK_RENAME_OLD"),
    /** The old container is gone: create it again from the prior plan. */
    ROLLBACK_RECREATE_OLD("rollback:recreate-old", Family.ROLLBACK, Effect.CREATE, Target.OLD, Guard.OLD_GONE,
            EnumSet.of(ROLLING_BACK), "ROLLBACK_RECREATE_OLD"),
    /** Record the recreated container's ID. */
    ROLLBACK_RECORD_OLD("rollback:record-old", Family.ROLLBACK, Effect.WRITE, Target.RECORD, Guard.OLD_GONE,
            EnumSet.of(ROLLING_BACK), "ROLLBACK_RECREATE_OLD"),
    /** Start the old container again (only if it was running). */
    ROLLBACK_START_OLD("rollback:start-old", Family.ROLLBACK, Effect.START, Target.OLD, Guard.WAS_RUNNING,
            EnumSet.of(ROLLING_BACK), "ROLLBACK_START_OLD"),
    /** Record the prior plan as current, revision unchanged. */
    ROLLBACK_COMMIT("rollback:commit", Family.ROLLBACK, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(ROLLING_BACK), null),
    /**
     * The rollback failed or was unsafe: stop every container the record names that is still ours
     * (never removed), and remove one an interrupted recreate left unrecorded.
     */
    ROLLBACK_STOP_ALL("rollback:stop-all", Family.ROLLBACK, Effect.STOP, Target.ALL, Guard.ALWAYS,
            EnumSet.of(REPLACING, ROLLING_BACK), null),
    /** Persist {@code INTERVENTION_REQUIRED}. */
    ROLLBACK_GIVE_UP("rollback:give-up", Family.ROLLBACK, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(REPLACING, ROLLING_BACK), null),

    // delete
    /** Persist {@code DELETING}. */
    DELETE_PERSIST_INTENT("delete:persist", Family.DELETE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(CREATED, RUNNING, STOPPED, INTERVENTION_REQUIRED), null),
    /** Remove the registered container. */
    DELETE_REMOVE_CONTAINER("delete:remove-container", Family.DELETE, Effect.REMOVE, Target.CURRENT,
            Guard.CURRENT_RECORDED, EnumSet.of(DELETING), "DELETE_REMOVE_CONTAINER"),
    /** Remove the prior container an unfinished replace left (only from {@code INTERVENTION_REQUIRED}). */
    DELETE_REMOVE_PRIOR("delete:remove-prior", Family.DELETE, Effect.REMOVE, Target.OLD, Guard.OLD_RECORDED,
            EnumSet.of(DELETING), "DELETE_REMOVE_CONTAINER"),
    /** End the registration. */
    DELETE_REMOVE_RECORD("delete:remove-record", Family.DELETE, Effect.WRITE, Target.RECORD, Guard.ALWAYS,
            EnumSet.of(DELETING), "DELETE_REMOVE_CONTAINER");

    /** Which operation a step belongs to. */
    enum Family {
        CREATE, REPLACE, ROLLBACK, DELETE
    }

    /** The one effect a step may have. No step has an effect on host data: there is no such value. */
    enum Effect {
        /** A registry write (insert, compare-and-set, remove); the engine is not called. */
        WRITE,
        /** The engine creates a container named {@code dogama-X}. */
        CREATE,
        /** The engine stops a container. */
        STOP,
        /** The engine renames a container. */
        RENAME,
        /** The engine starts a container. */
        START,
        /** The engine removes a container (force, never its volumes or any host path). */
        REMOVE,
        /** The engine is asked about containers; nothing is changed. */
        LOOK
    }

    /** The container a step acts on, always by its recorded ID (or, for a create, the one it makes). */
    enum Target {
        /** The registry record itself. */
        RECORD,
        /** The record's main container (during a replace: the new one). */
        CURRENT,
        /** The new container of a replace, before it is recorded. */
        NEW,
        /** The prior (old) container of a replace. */
        OLD,
        /** Every container the record names that is still ours. */
        ALL
    }

    /** When a step acts; a step whose guard does not hold is passed over as done, without effect. */
    enum Guard {
        ALWAYS,
        /** The record names a prior container. */
        OLD_RECORDED,
        /** The prior container, recorded, still exists (it is renamed back rather than recreated). */
        OLD_PRESENT,
        /** The prior container is gone (it is recreated). */
        OLD_GONE,
        /** The prior container was running before the replace. */
        WAS_RUNNING,
        /** The record names a main container. */
        CURRENT_RECORDED,
        /** A container of this create is known: its ID was returned, or the crash-window rule found one. */
        CONTAINER_KNOWN
    }

    /** What can happen to a step once it starts. */
    enum Outcome {
        /** The effect happened and the agent knows it. */
        DONE,
        /** The engine (or the registry) refused: no effect. */
        REFUSED,
        /**
         * The engine did not answer (timeout, connection lost): the effect may or may not have
         * happened. A registry write is local and compare-and-set: its failure is REFUSED's.
         */
        SILENT,
        /** The agent dies while the step is in progress (before or after its effect); a new agent starts. */
        CRASH
    }

    /** What follows a step's outcome. */
    sealed interface Decision permits Go, End, Keep {
    }

    /**
     * Run {@code step} next (in this process, or in the start-up reconciliation after a crash).
     *
     * @param step   the step
     * @param search true if a container of this instance that the registry does not name may exist
     *               (an engine create whose answer never arrived): the crash-window rule looks for it
     */
    record Go(Step step, boolean search) implements Decision {
    }

    /**
     * The operation ends by firing a table event ({@link Transitions}).
     *
     * @param ifStopped the event when the instance's container is to end stopped
     * @param ifRunning the event when it was running before a replace
     */
    record End(Event ifStopped, Event ifRunning) implements Decision {
        End(Event only) {
            this(only, only);
        }

        Event event(boolean wasRunning) {
            return wasRunning ? ifRunning : ifStopped;
        }
    }

    /** The operation ends here and the record stays as persisted (for the next request or start-up). */
    record Keep() implements Decision {
    }

    private final String marker;
    private final Family family;
    private final Effect effect;
    private final Target target;
    private final Guard guard;
    private final Set<Phase> before;
    private final String held;

    Step(String marker, Family family, Effect effect, Target target, Guard guard, Set<Phase> before, String held) {
        this.marker = marker;
        this.family = family;
        this.effect = effect;
        this.target = target;
        this.guard = guard;
        this.before = before;
        this.held = held;
    }

    /** @return the registry {@code step} text of this step */
    String marker() {
        return marker;
    }

    /**
     * @param text a registry {@code step} value
     * @return the step it names, empty if none (a record written by a newer build is not guessed at)
     */
    static Optional<Step> ofMarker(Optional<String> text) {
        return text.flatMap(t -> Arrays.stream(values()).filter(s -> s.marker.equals(t)).findFirst());
    }

    /** @return the operation the step belongs to */
    Family family() {
        return family;
    }

    /** @return the one effect this step may have */
    Effect effect() {
        return effect;
    }

    /** @return what it acts on */
    Target target() {
        return target;
    }

    /** @return when it acts */
    Guard guard() {
        return guard;
    }

    /** @return the states the record may be in while this step acts (what is persisted before it) */
    Set<Phase> before() {
        return before;
    }

    /**
     * @return the marker persisted before this step on its own path; empty where it is whatever the
     *         step that led here left (or no record at all, or no marker)
     */
    Optional<Step> held() {
        return Optional.ofNullable(held).map(Step::valueOf);
    }

    /**
     * The step that follows {@code step} when it is done; what the operations persist as the next
     * marker.
     *
     * @param state the persisted state while {@code step} acts
     * @param step  the step that is done
     * @return the next step
     * @throws IllegalStateException if the protocol ends there (or {@code step} cannot act in {@code state})
     */
    static Step after(Phase state, Step step) {
        if (decide(state, step, Outcome.DONE).orElse(new Keep()) instanceof Go go) {
            return go.step();
        }
        throw new IllegalStateException("lifecycle: no step follows " + step + " in " + state);
    }

    /**
     * The start-up reconciliation's action for a persisted record.
     *
     * @param state  the persisted state ({@link Phase#ABSENT}: no record)
     * @param marker the persisted step marker
     * @return where recovery starts, or {@link Keep} (a settled state: only drift is logged)
     */
    static Decision recover(Phase state, Optional<Step> marker) {
        boolean search = marker.map(m -> m.effect == Effect.CREATE).orElse(false);
        return switch (state) {
            case ABSENT, CREATED, RUNNING, STOPPED, INTERVENTION_REQUIRED -> new Keep();
            case CREATING -> new Go(CREATE_UNDO_REMOVE, true);
            // Once the new container is recorded, a prior container that is gone means the replace got past its
            // removal (or someone removed it): finishing keeps the new container the caller asked for, where a
            // rollback would remove it and recreate the old one from its plan (its writable layer lost either way).
            // It is also the one end an older registry copy from this window, restored, leads to that a committed
            // replace agrees with (StaleRegistryTest).
            case REPLACING -> marker.filter(m -> m == REPLACE_START_NEW || m == REPLACE_REMOVE_OLD).isPresent()
                    ? new Go(REPLACE_RESUME, false) : new Go(ROLLBACK_PERSIST, search);
            case ROLLING_BACK -> new Go(ROLLBACK_REMOVE_NEW, search);
            case DELETING -> new Go(DELETE_REMOVE_CONTAINER, false);
        };
    }

    /**
     * THE step function: what follows {@code step} when {@code outcome} happens while the record is
     * in {@code state}. A crash answers with {@link #recover} for the marker the step holds (for a
     * step without a fixed one, the reconciliation asks {@link #recover} with the marker actually
     * found).
     *
     * @param state   the persisted state while the step acts
     * @param step    the step
     * @param outcome what happened
     * @return the decision; empty if the record cannot be in {@code state} while {@code step} acts
     */
    static Optional<Decision> decide(Phase state, Step step, Outcome outcome) {
        if (!step.before.contains(state)) {
            return Optional.empty();
        }
        if (outcome == Outcome.CRASH) {
            return Optional.of(recover(state, step.held()));
        }
        boolean done = outcome == Outcome.DONE;
        boolean silent = outcome == Outcome.SILENT;
        Decision d = switch (step) {
            case CREATE_PERSIST_INTENT -> done ? new Go(CREATE_CONTAINER, false) : new Keep();
            case CREATE_CONTAINER -> done ? new Go(CREATE_COMMIT, false) : new Go(CREATE_UNDO_REMOVE, silent);
            case CREATE_COMMIT -> done ? new End(Event.CREATE_SUCCEEDED) : new Go(CREATE_UNDO_REMOVE, false);
            case CREATE_UNDO_REMOVE -> done ? new Go(CREATE_UNDO_DROP, false) : new Keep();
            case CREATE_UNDO_DROP -> done ? new End(Event.CREATE_FAILED) : new Keep();

            case REPLACE_PERSIST_INTENT -> done ? new Go(REPLACE_STOP_OLD, false) : new Keep();
            case REPLACE_STOP_OLD -> done ? new Go(REPLACE_RENAME_OLD, false) : new Go(ROLLBACK_PERSIST, false);
            case REPLACE_RENAME_OLD -> done ? new Go(REPLACE_CREATE_NEW, false) : new Go(ROLLBACK_PERSIST, false);
            case REPLACE_CREATE_NEW -> done ? new Go(REPLACE_RECORD_NEW, false) : new Go(ROLLBACK_PERSIST, silent);
            // a failed record write: this process still knows the new ID and folds it into the rollback
            case REPLACE_RECORD_NEW -> done ? new Go(REPLACE_START_NEW, false) : new Go(ROLLBACK_PERSIST, false);
            case REPLACE_START_NEW -> done ? new Go(REPLACE_REMOVE_OLD, false) : new Go(ROLLBACK_PERSIST, false);
            case REPLACE_REMOVE_OLD -> done ? new Go(REPLACE_COMMIT, false) : new Go(ROLLBACK_PERSIST, false);
            // in the request, a replace that did not commit is always rolled back; only a recovery (at start-up, or
            // the one a later request runs first) resumes one
            case REPLACE_COMMIT -> done ? new End(Event.REPLACED_CREATED, Event.REPLACED_RUNNING)
                    : new Go(ROLLBACK_PERSIST, false);
            // refused: the prior container is there (or the new one is not ours), so it is rolled back; an engine
            // that did not answer decides nothing: the record stays for the next start
            case REPLACE_RESUME -> done ? new Go(REPLACE_START_NEW, false)
                    : silent ? new Keep() : new Go(ROLLBACK_PERSIST, false);

            case ROLLBACK_PERSIST -> done ? new Go(ROLLBACK_REMOVE_NEW, false) : new Go(ROLLBACK_STOP_ALL, false);
            // REFUSED here also stands for "not safe": the prior cannot come back, nothing is removed
            case ROLLBACK_REMOVE_NEW -> done ? new Go(ROLLBACK_RENAME_OLD, false) : new Go(ROLLBACK_STOP_ALL, false);
            case ROLLBACK_RENAME_OLD -> done ? new Go(ROLLBACK_RECREATE_OLD, false)
                    : new Go(ROLLBACK_STOP_ALL, false);
            case ROLLBACK_RECREATE_OLD -> done ? new Go(ROLLBACK_RECORD_OLD, false)
                    : new Go(ROLLBACK_STOP_ALL, silent);
            case ROLLBACK_RECORD_OLD -> done ? new Go(ROLLBACK_START_OLD, false) : new Go(ROLLBACK_STOP_ALL, true);
            case ROLLBACK_START_OLD -> done ? new Go(ROLLBACK_COMMIT, false) : new Go(ROLLBACK_STOP_ALL, false);
            case ROLLBACK_COMMIT -> done ? new End(Event.ROLLED_BACK_STOPPED, Event.ROLLED_BACK_RUNNING)
                    : new Go(ROLLBACK_STOP_ALL, false);
            case ROLLBACK_STOP_ALL -> done ? new Go(ROLLBACK_GIVE_UP, false) : new Keep();
            case ROLLBACK_GIVE_UP -> done ? new End(Event.ROLLBACK_FAILED) : new Keep();

            case DELETE_PERSIST_INTENT -> done ? new Go(DELETE_REMOVE_CONTAINER, false) : new Keep();
            case DELETE_REMOVE_CONTAINER -> done ? new Go(DELETE_REMOVE_PRIOR, false) : new Keep();
            case DELETE_REMOVE_PRIOR -> done ? new Go(DELETE_REMOVE_RECORD, false) : new Keep();
            case DELETE_REMOVE_RECORD -> done ? new End(Event.DELETE_SUCCEEDED) : new Keep();
        };
        return Optional.of(d);
    }
}
