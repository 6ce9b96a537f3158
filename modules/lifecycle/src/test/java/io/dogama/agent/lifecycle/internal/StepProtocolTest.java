package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every (state, step, event) triple of the step protocol ({@link Step#decide}): 9 states x 27 steps
 * x 4 outcomes = 972 cases, and every (state, marker) pair of {@link Step#recover}.
 */
class StepProtocolTest {

    /** The answer every triple must give, written out independently of the switch in {@link Step}. */
    private static Optional<Step.Decision> expected(Phase state, Step step, Step.Outcome outcome) {
        if (!step.before().contains(state)) {
            return Optional.empty();
        }
        if (outcome == Step.Outcome.CRASH) {
            return Optional.of(Step.recover(state, step.held()));
        }
        return Optional.of(switch (outcome) {
            case DONE -> done(step);
            case REFUSED -> failed(step, false);
            // a look the engine did not answer decides nothing
            case SILENT -> step == Step.REPLACE_RESUME ? new Step.Keep()
                    : failed(step, step.effect() == Step.Effect.CREATE);
            case CRASH -> throw new AssertionError();
        });
    }

    private static Step.Decision done(Step step) {
        return switch (step) {
            case CREATE_COMMIT -> new Step.End(Event.CREATE_SUCCEEDED);
            case CREATE_UNDO_DROP -> new Step.End(Event.CREATE_FAILED);
            case REPLACE_COMMIT -> new Step.End(Event.REPLACED_CREATED, Event.REPLACED_RUNNING);
            case ROLLBACK_COMMIT -> new Step.End(Event.ROLLED_BACK_STOPPED, Event.ROLLED_BACK_RUNNING);
            case ROLLBACK_GIVE_UP -> new Step.End(Event.ROLLBACK_FAILED);
            case DELETE_REMOVE_RECORD -> new Step.End(Event.DELETE_SUCCEEDED);
            // a resumed replace runs its own steps again from the start of the new container
            case REPLACE_RESUME -> new Step.Go(Step.REPLACE_START_NEW, false);
            default -> new Step.Go(Step.values()[step.ordinal() + 1], false);
        };
    }

    private static Step.Decision failed(Step step, boolean search) {
        return switch (step.family()) {
            case CREATE -> switch (step) {
                case CREATE_CONTAINER, CREATE_COMMIT -> new Step.Go(Step.CREATE_UNDO_REMOVE, search);
                default -> new Step.Keep();
            };
            case REPLACE -> step == Step.REPLACE_PERSIST_INTENT ? new Step.Keep()
                    : new Step.Go(Step.ROLLBACK_PERSIST, search);
            case ROLLBACK -> switch (step) {
                case ROLLBACK_STOP_ALL, ROLLBACK_GIVE_UP -> new Step.Keep();
                // the recreated container exists, unrecorded: the give-up looks for it
                case ROLLBACK_RECORD_OLD -> new Step.Go(Step.ROLLBACK_STOP_ALL, true);
                default -> new Step.Go(Step.ROLLBACK_STOP_ALL, search);
            };
            case DELETE -> new Step.Keep();
        };
    }

    @TestFactory
    Stream<DynamicTest> everyStateStepOutcomeTriple() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Phase state : Phase.values()) {
            for (Step step : Step.values()) {
                for (Step.Outcome outcome : Step.Outcome.values()) {
                    Optional<Step.Decision> want = expected(state, step, outcome);
                    tests.add(DynamicTest.dynamicTest(state + " / " + step + " / " + outcome + " -> "
                            + want.map(Object::toString).orElse("impossible"),
                            () -> assertEquals(want, Step.decide(state, step, outcome))));
                }
            }
        }
        assertEquals(Phase.values().length * Step.values().length * Step.Outcome.values().length, tests.size());
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> everyPersistedStateAndMarker() {
        List<DynamicTest> tests = new ArrayList<>();
        List<Optional<Step>> markers = new ArrayList<>();
        markers.add(Optional.empty());
        for (Step s : Step.values()) {
            markers.add(Optional.of(s));
        }
        for (Phase state : Phase.values()) {
            for (Optional<Step> marker : markers) {
                tests.add(DynamicTest.dynamicTest(state + " / " + marker.map(Enum::name).orElse("-"), () -> {
                    Step.Decision d = Step.recover(state, marker);
                    boolean settled = EnumSet.of(Phase.ABSENT, Phase.CREATED, Phase.RUNNING, Phase.STOPPED,
                            Phase.INTERVENTION_REQUIRED).contains(state);
                    assertEquals(settled, d instanceof Step.Keep, d.toString());
                    // a replace is resumed exactly where the new container is recorded, and nowhere else
                    boolean recorded = state == Phase.REPLACING && marker.isPresent()
                            && EnumSet.of(Step.REPLACE_START_NEW, Step.REPLACE_REMOVE_OLD).contains(marker.get());
                    assertEquals(recorded, d.equals(new Step.Go(Step.REPLACE_RESUME, false)), d.toString());
                    if (d instanceof Step.Go go) {
                        assertTrue(go.step().before().contains(state), go + " cannot act in " + state);
                        boolean create = marker.map(m -> m.effect() == Step.Effect.CREATE).orElse(false);
                        boolean rollback = state == Phase.REPLACING || state == Phase.ROLLING_BACK;
                        assertEquals(state == Phase.CREATING || rollback && create, go.search(),
                                "crash-window search");
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** Every step the protocol can reach is a step some state can run, and every End is in the table. */
    @Test
    void everyAnswerFitsTheStateTable() {
        for (Step step : Step.values()) {
            for (Phase state : step.before()) {
                for (Step.Outcome o : Step.Outcome.values()) {
                    Step.Decision d = Step.decide(state, step, o).orElseThrow();
                    if (d instanceof Step.Go go && o != Step.Outcome.CRASH) {
                        Set<Phase> can = go.step().before();
                        assertTrue(can.contains(state) || step.effect() == Step.Effect.WRITE,
                                step + "/" + o + " -> " + go.step() + " from " + state);
                    }
                    if (d instanceof Step.End end) {
                        Phase from = state == Phase.REPLACING && end.ifStopped() == Event.ROLLBACK_FAILED
                                ? Phase.ROLLING_BACK : state;
                        assertTrue(Transitions.next(from, end.ifStopped()).isPresent(), step + " " + end);
                        assertTrue(Transitions.next(from, end.ifRunning()).isPresent(), step + " " + end);
                    }
                }
            }
        }
    }

    @Test
    void markersRoundTripAsEnumValues() {
        for (Step s : Step.values()) {
            assertEquals(Optional.of(s), Step.ofMarker(Optional.of(s.marker())));
        }
        assertEquals(Optional.empty(), Step.ofMarker(Optional.of("no-such-step")));
        assertFalse(Step.ofMarker(Optional.empty()).isPresent());
    }

    /** Inside the process a step's answer does not depend on which of its states the record is in. */
    @Test
    void inProcessAnswersDoNotDependOnTheState() {
        for (Step step : Step.values()) {
            for (Step.Outcome o : StepMachine.IN_PROCESS) {
                Set<Step.Decision> answers = new java.util.HashSet<>();
                for (Phase state : step.before()) {
                    answers.add(Step.decide(state, step, o).orElseThrow());
                }
                assertEquals(1, answers.size(), step + "/" + o + ": " + answers);
            }
        }
    }

    /** The squirrel machine that runs the operations has exactly decide's transitions, no more. */
    @Test
    void theSquirrelStepMachineIsDecide() {
        Map<Step.Go, Map<Step.Outcome, Step.Decision>> graph = StepMachine.graph();
        assertEquals(Step.values().length * 2, graph.size(), "a state per step, with and without search");
        graph.forEach((go, row) -> {
            assertEquals(StepMachine.IN_PROCESS.size(), row.size(), go.toString());
            for (Step.Outcome o : StepMachine.IN_PROCESS) {
                Phase any = go.step().before().iterator().next();
                assertEquals(Step.decide(any, go.step(), o).orElseThrow(), row.get(o), go + "/" + o);
            }
        });
    }
}
