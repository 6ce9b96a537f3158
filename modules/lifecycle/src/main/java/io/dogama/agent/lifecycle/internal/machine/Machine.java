package io.dogama.agent.lifecycle.internal.machine;

import org.squirrelframework.foundation.fsm.impl.AbstractStateMachine;

/**
 * The state machine class squirrel instantiates reflectively (a public no-argument constructor in
 * a package opened to it). It carries no behaviour: the table's and the step protocol's transitions
 * and actions are given to squirrel's builder by {@code Transitions} and {@code StepMachine}.
 *
 * @param <S> the state type
 * @param <E> the event type
 * @param <C> the context type
 */
public class Machine<S, E, C> extends AbstractStateMachine<Machine<S, E, C>, S, E, C> {
    /** For squirrel. */
    public Machine() {
    }

    /**
     * @param <S> the state type
     * @param <E> the event type
     * @param <C> the context type
     * @return this class, typed for squirrel's builder factory
     */
    @SuppressWarnings("unchecked") // a class literal cannot carry type arguments; erasure makes the cast exact
    public static <S, E, C> Class<Machine<S, E, C>> type() {
        return (Class<Machine<S, E, C>>) (Class<?>) Machine.class;
    }
}
