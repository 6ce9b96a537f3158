package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.internal.machine.Machine;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.squirrelframework.foundation.exception.TransitionException;
import org.squirrelframework.foundation.fsm.AnonymousAction;
import org.squirrelframework.foundation.fsm.ImmutableState;
import org.squirrelframework.foundation.fsm.ImmutableTransition;
import org.squirrelframework.foundation.fsm.StateMachineBuilder;
import org.squirrelframework.foundation.fsm.StateMachineBuilderFactory;

/**
 * squirrel runs the step protocol of {@link Step}. The machine's states are the protocol's
 * decisions ({@link Step.Go}: a step about to act; {@link Step.End} and {@link Step.Keep}: how the
 * run ended), its events the outcomes a step can have in this process (done, refused, silent), and
 * its transitions are {@link Step#decide}'s answers, built from it once, never written by hand.
 *
 * <p>Entering a {@code Go} state runs the step: its guard ({@link Actions#holds}; a guard that does
 * not hold passes the step over as done, without effect), the fault seam, the step's marker if the
 * record does not hold it yet (what the protocol says is persisted before the step), and then its
 * one effect ({@link Actions#act}). The step's outcome is fired as the next event. An operation
 * starts a run at its first step; the start-up reconciliation starts one where {@link Step#recover}
 * says. A crash is the process ending: nothing here catches an {@link Error}.
 *
 * <p>This class and {@link Transitions} are the only writers of the record: a step changes the record
 * through {@link Run#write} (same state) or {@link Run#fire} (a table event), both of which persist
 * the marker of the step that follows.
 */
final class StepMachine {
    /** The outcomes a step can have inside this process (a crash ends the process instead). */
    static final List<Step.Outcome> IN_PROCESS = List.of(Step.Outcome.DONE, Step.Outcome.REFUSED,
            Step.Outcome.SILENT);

    private static final StateMachineBuilder<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision,
            Step.Outcome, Run> BUILDER = build();

    private StepMachine() {
    }

    /** How the steps of one operation act. One instance per run: it holds what the run learns. */
    interface Actions {
        /**
         * @param step the step about to act
         * @param run  the run
         * @return whether the step's {@link Step#guard()} holds
         * @throws Abort a refusal (the step's outcome is then REFUSED; for the rollback's first
         *               removal this is also "not safe")
         */
        boolean holds(Step step, Run run) throws Abort, DockerException, RegistryException;

        /**
         * Performs the step's one effect ({@link Step#effect()}).
         *
         * @param step the step
         * @param run  the run
         */
        void act(Step step, Run run) throws Abort, DockerException, RegistryException;
    }

    /** The record's state was not one the step may act in: only a bug (or a lost write) gets here. */
    private static final class OutOfStep extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        OutOfStep(String message) {
            super(message);
        }
    }

    /** One run of the protocol: the record, the operation's actions and what went wrong first. */
    static final class Run {
        private final String what;
        private final Tracked tracked;
        private final Actions actions;
        private final Faults faults;
        private Step.Go at;
        private Phase phase;
        private Exception failure;
        private Exception lastFailure;

        /**
         * @param what    the operation and instance, for the log ({@code "replace mc-1"})
         * @param tracked the record (a create's intent not yet stored)
         * @param actions how the steps act
         * @param faults  the fault seam
         */
        Run(String what, Tracked tracked, Actions actions, Faults faults) {
            this.what = what;
            this.tracked = tracked;
            this.actions = actions;
            this.faults = faults;
        }

        /** @return the record */
        Tracked tracked() {
            return tracked;
        }

        /**
         * @return true if a container this run's protocol does not name may exist (an engine create
         *         whose answer was lost): the crash-window rule looks for it
         */
        boolean search() {
            return at.search();
        }

        /** @return the first failure of the run, if any */
        Optional<Exception> failure() {
            return Optional.ofNullable(failure);
        }

        /** @return the run's last failure, if any: for a run that did not end, what stopped it */
        Optional<Exception> lastFailure() {
            return Optional.ofNullable(lastFailure);
        }

        /**
         * @return how the running step ends the operation when it is done
         * @throws IllegalStateException if the step is not one that ends it
         */
        Step.End ending() {
            if (Step.decide(phase, at.step(), Step.Outcome.DONE).orElseThrow() instanceof Step.End end) {
                return end;
            }
            throw new IllegalStateException("lifecycle: " + at.step() + " does not end an operation");
        }

        /**
         * The marker persisted with a step's write: the one the step that follows holds (none where
         * the operation ends), so that the next step needs no write of its own.
         */
        private Optional<Step> nextMarker() {
            return Step.decide(phase, at.step(), Step.Outcome.DONE).orElseThrow() instanceof Step.Go go
                    ? go.step().held() : Optional.empty();
        }

        /**
         * Writes a change of the record that keeps its state.
         *
         * @param change the change
         */
        void write(UnaryOperator<InstanceRecord> change) throws Abort, RegistryException {
            tracked.persist(change.apply(tracked.record()).withStep(nextMarker().map(Step::marker)));
        }

        /**
         * Fires table events through {@link Transitions} and persists where they lead, in one write.
         *
         * @param content the rest of the record's change
         * @param events  the events, in order
         */
        void fire(UnaryOperator<InstanceRecord> content, Event... events) throws Abort, RegistryException {
            Transitions.fire(tracked, content, nextMarker(), events);
        }

        private Step.Outcome step(Step.Go go) {
            at = go;
            phase = tracked.stored() ? Phase.of(tracked.state()) : Phase.ABSENT;
            Step s = go.step();
            if (!s.before().contains(phase)) {
                throw new OutOfStep("lifecycle: " + s + " cannot act on a record in " + phase);
            }
            try {
                if (!actions.holds(s, this)) {
                    return Step.Outcome.DONE;
                }
                faults.at(s);
                Optional<Step> held = s.held();
                if (held.isPresent() && !Step.ofMarker(tracked.record().step()).equals(held)) {
                    tracked.mark(held);
                }
                actions.act(s, this);
                return Step.Outcome.DONE;
            } catch (Abort | DockerException | RegistryException | RuntimeException e) {
                Problems.log(what + " at " + s.marker(), e);
                if (failure == null) {
                    failure = e;
                }
                lastFailure = e;
                if (e instanceof RegistryException) {
                    reloadAfterUnknownWrite();
                }
                // A look changes nothing: an engine that fails it has told nothing to decide on, as one that is silent.
                boolean silent = s.effect() == Step.Effect.LOOK ? e instanceof DockerException
                        : s.effect() != Step.Effect.WRITE && lost(e);
                return silent ? Step.Outcome.SILENT : Step.Outcome.REFUSED;
            }
        }

        /** A registry write whose outcome is unknown may have gone through: what follows reads what is there. */
        private void reloadAfterUnknownWrite() {
            try {
                tracked.reload();
            } catch (Abort | RegistryException | RuntimeException e) {
                Problems.log(what + ": reading the record again", e);
            }
        }

        /** The engine did not answer: its effect may or may not have happened. */
        private static boolean lost(Exception e) {
            return e instanceof DockerTimeoutException || e instanceof DockerUnavailableException
                    || e instanceof DockerProtocolException;
        }
    }

    /** Entering a step runs it and fires its outcome (squirrel queues the event until the entry returns). */
    private static final class Enter
            extends AnonymousAction<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision, Step.Outcome, Run> {
        @Override
        public void execute(Step.Decision from, Step.Decision to, Step.Outcome event, Run run,
                Machine<Step.Decision, Step.Outcome, Run> machine) {
            machine.fire(run.step((Step.Go) to), run);
        }
    }

    /** @return every step, with and without the crash-window search: the machine's working states */
    static List<Step.Go> steps() {
        List<Step.Go> out = new ArrayList<>();
        for (Step s : Step.values()) {
            out.add(new Step.Go(s, false));
            out.add(new Step.Go(s, true));
        }
        return out;
    }

    private static StateMachineBuilder<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision, Step.Outcome,
            Run> build() {
        StateMachineBuilder<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision, Step.Outcome, Run> b =
                StateMachineBuilderFactory.create(Machine.type(), Step.Decision.class, Step.Outcome.class, Run.class);
        Enter enter = new Enter();
        for (Step.Go go : steps()) {
            b.onEntry(go).perform(enter);
            // Step.decide answers alike for every state a step may act in (StepProtocolTest checks it)
            Phase any = go.step().before().iterator().next();
            for (Step.Outcome o : IN_PROCESS) {
                Step.Decision to = Step.decide(any, go.step(), o).orElseThrow();
                b.externalTransition().from(go).to(to).on(o);
            }
        }
        return b;
    }

    /**
     * The machine as squirrel holds it: for every step state, where each outcome leads. The tests
     * and the generated diagram and model read the protocol from here, so what they show is what runs.
     *
     * @return the transitions by step state, in step order
     */
    static Map<Step.Go, Map<Step.Outcome, Step.Decision>> graph() {
        Machine<Step.Decision, Step.Outcome, Run> m = BUILDER.newStateMachine(steps().getFirst());
        Map<Step.Go, Map<Step.Outcome, Step.Decision>> out = new TreeMap<>(
                Comparator.comparing((Step.Go g) -> g.step()).thenComparing(Step.Go::search));
        for (ImmutableState<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision, Step.Outcome, Run> s
                : m.getAllRawStates()) {
            if (s.getStateId() instanceof Step.Go go) {
                Map<Step.Outcome, Step.Decision> row = new EnumMap<>(Step.Outcome.class);
                for (ImmutableTransition<Machine<Step.Decision, Step.Outcome, Run>, Step.Decision, Step.Outcome,
                        Run> t : s.getAllTransitions()) {
                    row.put(t.getEvent(), t.getTargetState().getStateId());
                }
                out.put(go, row);
            }
        }
        return out;
    }

    /**
     * Runs the protocol from {@code start} until it ends.
     *
     * @param start the first step
     * @param run   the run
     * @return how it ended: {@link Step.End} (its event persisted) or {@link Step.Keep}
     */
    static Step.Decision run(Step.Go start, Run run) {
        Machine<Step.Decision, Step.Outcome, Run> m = BUILDER.newStateMachine(start);
        try {
            m.start(run);
        } catch (TransitionException e) {
            if (e.getTargetException() instanceof OutOfStep out) {
                Problems.log(run.what, out);
                return new Step.Keep();
            }
            throw e;
        }
        return m.getCurrentState();
    }
}
