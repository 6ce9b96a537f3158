package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Event.CREATE;
import static io.dogama.agent.lifecycle.internal.Event.CREATE_FAILED;
import static io.dogama.agent.lifecycle.internal.Event.CREATE_SUCCEEDED;
import static io.dogama.agent.lifecycle.internal.Event.DELETE;
import static io.dogama.agent.lifecycle.internal.Event.DELETE_SUCCEEDED;
import static io.dogama.agent.lifecycle.internal.Event.REPLACE;
import static io.dogama.agent.lifecycle.internal.Event.REPLACED_CREATED;
import static io.dogama.agent.lifecycle.internal.Event.REPLACED_RUNNING;
import static io.dogama.agent.lifecycle.internal.Event.REPLACE_FAILED;
import static io.dogama.agent.lifecycle.internal.Event.RESTART;
import static io.dogama.agent.lifecycle.internal.Event.ROLLBACK_FAILED;
import static io.dogama.agent.lifecycle.internal.Event.ROLLED_BACK_RUNNING;
import static io.dogama.agent.lifecycle.internal.Event.ROLLED_BACK_STOPPED;
import static io.dogama.agent.lifecycle.internal.Event.START;
import static io.dogama.agent.lifecycle.internal.Event.STOP;
import static io.dogama.agent.lifecycle.internal.Phase.ABSENT;
import static io.dogama.agent.lifecycle.internal.Phase.CREATED;
import static io.dogama.agent.lifecycle.internal.Phase.CREATING;
import static io.dogama.agent.lifecycle.internal.Phase.DELETING;
import static io.dogama.agent.lifecycle.internal.Phase.INTERVENTION_REQUIRED;
import static io.dogama.agent.lifecycle.internal.Phase.REPLACING;
import static io.dogama.agent.lifecycle.internal.Phase.ROLLING_BACK;
import static io.dogama.agent.lifecycle.internal.Phase.RUNNING;
import static io.dogama.agent.lifecycle.internal.Phase.STOPPED;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.lifecycle.internal.machine.Machine;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.squirrelframework.foundation.fsm.AnonymousAction;
import org.squirrelframework.foundation.fsm.StateMachineBuilder;
import org.squirrelframework.foundation.fsm.StateMachineBuilderFactory;

/**
 * THE transition table of SPEC section 10, the only place where lifecycle transitions are
 * defined. Any (phase, event) pair not listed is {@code invalid_transition}.
 *
 * <p>squirrel runs it: {@link #fire} starts a machine at the record's state and fires the event; the
 * transition's one action persists the state the table leads to (insert, compare-and-set write or
 * removal of the record). That action is the only code that persists a state. The Docker calls
 * between states are the steps of {@link StepMachine}, whose write steps end in {@link #fire}.
 */
final class Transitions {

    /** One row of the table. */
    record Row(Phase from, Event on, Phase to) {
    }

    /** The whole table. Self-transitions make repeated requests idempotent. */
    static final List<Row> TABLE = List.of(
            // create: intent first, then the container; a failed create drops the intent
            new Row(ABSENT, CREATE, CREATING),
            new Row(CREATING, CREATE_SUCCEEDED, CREATED),
            new Row(CREATING, CREATE_FAILED, ABSENT),
            // start / stop / restart, idempotent
            new Row(CREATED, START, RUNNING),
            new Row(STOPPED, START, RUNNING),
            new Row(RUNNING, START, RUNNING),
            new Row(RUNNING, STOP, STOPPED),
            new Row(STOPPED, STOP, STOPPED),
            new Row(CREATED, STOP, CREATED),
            new Row(RUNNING, RESTART, RUNNING),
            new Row(STOPPED, RESTART, RUNNING),
            new Row(CREATED, RESTART, RUNNING),
            // replace and rollback
            new Row(CREATED, REPLACE, REPLACING),
            new Row(RUNNING, REPLACE, REPLACING),
            new Row(STOPPED, REPLACE, REPLACING),
            new Row(REPLACING, REPLACED_RUNNING, RUNNING),
            new Row(REPLACING, REPLACED_CREATED, CREATED),
            new Row(REPLACING, REPLACE_FAILED, ROLLING_BACK),
            new Row(ROLLING_BACK, ROLLED_BACK_RUNNING, RUNNING),
            new Row(ROLLING_BACK, ROLLED_BACK_STOPPED, STOPPED),
            new Row(ROLLING_BACK, ROLLBACK_FAILED, INTERVENTION_REQUIRED),
            // delete keeps host data; it is also the operator's way out of INTERVENTION_REQUIRED,
            // and a delete that failed half-way may be asked again
            new Row(CREATED, DELETE, DELETING),
            new Row(RUNNING, DELETE, DELETING),
            new Row(STOPPED, DELETE, DELETING),
            new Row(INTERVENTION_REQUIRED, DELETE, DELETING),
            new Row(DELETING, DELETE, DELETING),
            new Row(DELETING, DELETE_SUCCEEDED, ABSENT));

    private static final StateMachineBuilder<Machine<Phase, Event, Firing>, Phase, Event, Firing> BUILDER = build();

    private Transitions() {
    }

    /**
     * The events fired for one record write: the record it persists and the step marker written
     * with it. The action cannot throw the registry's checked failures through squirrel, so it keeps
     * the first one here and {@link #fire} throws it after squirrel returns.
     */
    static final class Firing {
        private final Tracked tracked;
        private final UnaryOperator<InstanceRecord> content;
        private final Optional<Step> marker;
        private int remaining;
        private Exception failure;

        private Firing(Tracked tracked, UnaryOperator<InstanceRecord> content, Optional<Step> marker, int events) {
            this.tracked = tracked;
            this.content = content;
            this.marker = marker;
            this.remaining = events;
        }

        /** Persists once the last event has moved the machine. */
        private void moved(Phase to) {
            if (--remaining > 0) {
                return;
            }
            try {
                if (to.persisted().isEmpty()) {
                    tracked.remove();
                    return;
                }
                InstanceRecord next = content.apply(tracked.record()).withState(to.persisted().get())
                        .withStep(marker.map(Step::marker));
                if (!tracked.stored() || !next.equals(tracked.record())) {
                    tracked.persist(next);
                }
            } catch (Abort | RegistryException | RuntimeException e) {
                failure = e;
            }
        }
    }

    /** THE action of every transition. */
    private static final class Persist
            extends AnonymousAction<Machine<Phase, Event, Firing>, Phase, Event, Firing> {
        @Override
        public void execute(Phase from, Phase to, Event event, Firing firing,
                Machine<Phase, Event, Firing> machine) {
            firing.moved(to);
        }
    }

    private static StateMachineBuilder<Machine<Phase, Event, Firing>, Phase, Event, Firing> build() {
        StateMachineBuilder<Machine<Phase, Event, Firing>, Phase, Event, Firing> b =
                StateMachineBuilderFactory.create(Machine.type(), Phase.class, Event.class, Firing.class);
        Persist persist = new Persist();
        for (Row r : TABLE) {
            if (r.from() == r.to()) {
                b.internalTransition().within(r.from()).on(r.on()).perform(persist);
            } else {
                b.externalTransition().from(r.from()).to(r.to()).on(r.on()).perform(persist);
            }
        }
        return b;
    }

    /**
     * Fires {@code events} in order, starting at the record's state, and persists where the last one
     * leads, in one write: the record with {@code content} applied, that state and {@code marker}; or,
     * where it leads to no record, the record's removal. A self-transition whose record does not
     * change writes nothing.
     *
     * @param tracked the record (a create's not yet stored intent starts at {@link Phase#ABSENT})
     * @param content the rest of the record's change
     * @param marker  the step marker persisted with it
     * @param events  the events, at least one
     * @return the state the record is in now
     * @throws IllegalStateException if the table does not allow an event (callers only fire what
     *                               {@link #request} or {@link Step#decide} allowed: a bug)
     * @throws Abort                 the write's refusal ({@link Tracked#persist})
     * @throws RegistryException     if the registry failed
     */
    static Phase fire(Tracked tracked, UnaryOperator<InstanceRecord> content, Optional<Step> marker,
            Event... events) throws Abort, RegistryException {
        Phase from = tracked.stored() ? Phase.of(tracked.state()) : Phase.ABSENT;
        Machine<Phase, Event, Firing> m = BUILDER.newStateMachine(from);
        m.start();
        Firing firing = new Firing(tracked, content, marker, events.length);
        for (Event e : events) {
            if (!m.canAccept(e)) {
                throw new IllegalStateException("lifecycle: no transition " + m.getCurrentState() + " --" + e + "-->");
            }
            m.fire(e, firing);
        }
        switch (firing.failure) {
            case null -> {
            }
            case Abort a -> throw a;
            case RegistryException e -> throw e;
            case RuntimeException e -> throw e;
            default -> throw new IllegalStateException("lifecycle: unexpected failure", firing.failure);
        }
        return m.getCurrentState();
    }

    /**
     * A request event: not allowed means {@code invalid_transition}.
     *
     * @param from  the current state, empty for "no record"
     * @param event the request
     * @return the phase the request leads to
     * @throws Abort {@code invalid_transition}
     */
    static Phase request(Optional<InstanceState> from, Event event) throws Abort {
        return next(from.map(Phase::of).orElse(Phase.ABSENT), event)
                .orElseThrow(() -> new Abort(ProblemCode.INVALID_TRANSITION));
    }

    /**
     * @param from  current phase
     * @param event what happens
     * @return the next phase, or empty when the event is not allowed in {@code from}
     */
    static Optional<Phase> next(Phase from, Event event) {
        Machine<Phase, Event, Firing> m = BUILDER.newStateMachine(from);
        m.start();
        if (!m.canAccept(event)) {
            return Optional.empty();
        }
        // a dry run: squirrel answers the target without running the action
        return Optional.of(m.test(event));
    }
}
