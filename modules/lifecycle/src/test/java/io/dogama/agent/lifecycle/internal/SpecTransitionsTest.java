package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Event.CREATE;
import static io.dogama.agent.lifecycle.internal.Event.DELETE;
import static io.dogama.agent.lifecycle.internal.Event.REPLACE;
import static io.dogama.agent.lifecycle.internal.Event.RESTART;
import static io.dogama.agent.lifecycle.internal.Event.START;
import static io.dogama.agent.lifecycle.internal.Event.STOP;
import static io.dogama.agent.lifecycle.internal.Phase.ABSENT;
import static io.dogama.agent.lifecycle.internal.Phase.CREATED;
import static io.dogama.agent.lifecycle.internal.Phase.CREATING;
import static io.dogama.agent.lifecycle.internal.Phase.DELETING;
import static io.dogama.agent.lifecycle.internal.Phase.INTERVENTION_REQUIRED;
import static io.dogama.agent.lifecycle.internal.Phase.REPLACING;
import static io.dogama.agent.lifecycle.internal.Phase.RUNNING;
import static io.dogama.agent.lifecycle.internal.Phase.STOPPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dogama.agent.core.ProblemCode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The request transitions of SPEC section 10, written out by hand from the SPEC, never derived from
 * {@link Transitions#TABLE}: {@code TransitionsTest} reads its expectation from the table itself, so a row added
 * there (a delete of a {@code REPLACING} instance, a start out of {@code INTERVENTION_REQUIRED}) would pass it. Here
 * such a row fails, as does a row dropped or led elsewhere.
 */
class SpecTransitionsTest {
    /** The events a request fires; the others are step outcomes, which no caller can ask for. */
    private static final Set<Event> REQUESTS = EnumSet.of(CREATE, START, STOP, RESTART, REPLACE, DELETE);

    private record Pair(Phase from, Event on) {
    }

    /**
     * Every allowed (state, request) pair and where it leads. Start, stop and restart are idempotent where the
     * instance already is where they lead; replace and delete are asked of a settled instance, delete also of one an
     * operator must clear ({@code INTERVENTION_REQUIRED}) and of one whose delete stopped half-way.
     */
    private static final Map<Pair, Phase> ALLOWED = Map.ofEntries(
            Map.entry(new Pair(ABSENT, CREATE), CREATING),

            Map.entry(new Pair(CREATED, START), RUNNING),
            Map.entry(new Pair(RUNNING, START), RUNNING),
            Map.entry(new Pair(STOPPED, START), RUNNING),

            Map.entry(new Pair(CREATED, STOP), CREATED),
            Map.entry(new Pair(RUNNING, STOP), STOPPED),
            Map.entry(new Pair(STOPPED, STOP), STOPPED),

            Map.entry(new Pair(CREATED, RESTART), RUNNING),
            Map.entry(new Pair(RUNNING, RESTART), RUNNING),
            Map.entry(new Pair(STOPPED, RESTART), RUNNING),

            Map.entry(new Pair(CREATED, REPLACE), REPLACING),
            Map.entry(new Pair(RUNNING, REPLACE), REPLACING),
            Map.entry(new Pair(STOPPED, REPLACE), REPLACING),

            Map.entry(new Pair(CREATED, DELETE), DELETING),
            Map.entry(new Pair(RUNNING, DELETE), DELETING),
            Map.entry(new Pair(STOPPED, DELETE), DELETING),
            Map.entry(new Pair(INTERVENTION_REQUIRED, DELETE), DELETING),
            Map.entry(new Pair(DELETING, DELETE), DELETING));

    /**
     * Every (phase, request) pair, 9 x 6: an allowed one leads where {@link #ALLOWED} says, through both
     * {@link Transitions#next} and {@link Transitions#request} (the operations' gate); any other is refused by both,
     * the gate with {@code invalid_transition}.
     */
    @TestFactory
    Stream<DynamicTest> everyRequestInEveryStateIsAsSpecSection10Says() {
        List<DynamicTest> tests = new ArrayList<>();
        int allowed = 0;
        for (Phase from : Phase.values()) {
            for (Event on : REQUESTS) {
                Optional<Phase> expected = Optional.ofNullable(ALLOWED.get(new Pair(from, on)));
                allowed += expected.isPresent() ? 1 : 0;
                tests.add(DynamicTest.dynamicTest(from + " --" + on + "--> "
                        + expected.map(Enum::name).orElse("invalid_transition"), () -> {
                            assertEquals(expected, Transitions.next(from, on), "Transitions.next");
                            if (expected.isPresent()) {
                                assertEquals(expected.get(), Transitions.request(from.persisted(), on),
                                        "Transitions.request");
                            } else {
                                Abort refused = assertThrows(Abort.class,
                                        () -> Transitions.request(from.persisted(), on), "Transitions.request");
                                assertEquals(ProblemCode.INVALID_TRANSITION, refused.code());
                            }
                        }));
            }
        }
        // Guards against a vacuous pass: a renamed enum constant or a shrunk request set would check fewer pairs.
        assertEquals(9 * 6, tests.size(), "phases x request events");
        assertEquals(ALLOWED.size(), allowed, "every listed pair names a phase and a request event");
        return tests.stream();
    }
}
