package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.ProblemCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * How the operations consult {@link Transitions}: every state an operation persists is the machine's
 * answer, never a constant written at the call site. The machine is a pure function, so its answers
 * for all (phase, event) pairs are asked once at class load (a squirrel machine per call would cost
 * more than the registry write it guards).
 */
final class Fsm {
    private static final Map<Phase, Map<Event, Phase>> NEXT = table();

    private Fsm() {
    }

    private static Map<Phase, Map<Event, Phase>> table() {
        Map<Phase, Map<Event, Phase>> all = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            Map<Event, Phase> row = new EnumMap<>(Event.class);
            for (Event e : Event.values()) {
                Transitions.next(p, e).ifPresent(to -> row.put(e, to));
            }
            all.put(p, row);
        }
        return all;
    }

    /**
     * @param from  the phase
     * @param event the event
     * @return the next phase, if the event is allowed
     */
    static Optional<Phase> next(Phase from, Event event) {
        return Optional.ofNullable(NEXT.get(from).get(event));
    }

    /**
     * A request event: not allowed means {@code invalid_transition}.
     *
     * @param from  the current state, empty for "no record"
     * @param event the request
     * @return the next phase
     * @throws Abort {@code invalid_transition}
     */
    static Phase request(Optional<InstanceState> from, Event event) throws Abort {
        Phase p = from.map(Phase::of).orElse(Phase.ABSENT);
        return next(p, event).orElseThrow(() -> new Abort(ProblemCode.INVALID_TRANSITION));
    }

    /**
     * An outcome event of a step the operation itself drives; the code only fires those the table
     * allows, so a refusal is a bug in this module.
     *
     * @param from  the current state
     * @param event what happened
     * @return the state to persist, empty for "no record"
     * @throws IllegalStateException if the table does not allow it
     */
    static Optional<InstanceState> outcome(InstanceState from, Event event) {
        Phase to = next(Phase.of(from), event).orElseThrow(
                () -> new IllegalStateException("lifecycle: no transition " + from + " --" + event + "-->"));
        return to.persisted();
    }

    /**
     * @param from  the current state
     * @param event what happened
     * @return the persisted state it leads to (never "no record")
     * @throws IllegalStateException if the table does not allow it or it leads to no record
     */
    static InstanceState to(InstanceState from, Event event) {
        return outcome(from, event).orElseThrow(
                () -> new IllegalStateException("lifecycle: " + from + " --" + event + "--> has no record"));
    }

    /**
     * @param from  the current state
     * @param event what happened
     * @throws IllegalStateException unless the table lets the event end the record
     */
    static void toAbsent(InstanceState from, Event event) {
        if (outcome(from, event).isPresent()) {
            throw new IllegalStateException("lifecycle: " + from + " --" + event + "--> keeps a record");
        }
    }
}
