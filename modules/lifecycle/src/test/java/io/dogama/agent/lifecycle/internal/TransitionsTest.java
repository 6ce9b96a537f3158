package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

class TransitionsTest {
    /** The committed diagram, relative to this module's directory (surefire's working directory). */
    private static final Path COMMITTED_DOT = Path.of("../../docs/lifecycle.dot");

    /**
     * Every (phase, event) pair: the machine's answer must equal the table, and every pair that is
     * not in the table must be refused. 9 phases x 15 events = 135 cases.
     */
    @TestFactory
    Stream<DynamicTest> everyStateEventPair() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Phase from : Phase.values()) {
            for (Event on : Event.values()) {
                Optional<Phase> expected = Transitions.TABLE.stream()
                        .filter(r -> r.from() == from && r.on() == on).map(Transitions.Row::to).findFirst();
                tests.add(DynamicTest.dynamicTest(from + " --" + on + "--> " + expected.map(Enum::name)
                        .orElse("invalid_transition"), () -> assertEquals(expected, Transitions.next(from, on))));
            }
        }
        assertEquals(Phase.values().length * Event.values().length, tests.size());
        return tests.stream();
    }

    @Test
    void tableIsDeterministic() {
        long distinct = Transitions.TABLE.stream().map(r -> r.from() + "/" + r.on()).distinct().count();
        assertEquals(Transitions.TABLE.size(), distinct, "two rows for one (state, event)");
    }

    @Test
    void nothingLeavesInterventionExceptDelete() {
        for (Event on : Event.values()) {
            Optional<Phase> next = Transitions.next(Phase.INTERVENTION_REQUIRED, on);
            assertEquals(on == Event.DELETE, next.isPresent(), on.name());
        }
    }

    @Test
    void everyPhaseIsReachableFromAbsent() {
        List<Phase> seen = new ArrayList<>(List.of(Phase.ABSENT));
        for (int i = 0; i < seen.size(); i++) {
            Phase p = seen.get(i);
            for (Event e : Event.values()) {
                Transitions.next(p, e).filter(n -> !seen.contains(n)).ifPresent(seen::add);
            }
        }
        assertEquals(Phase.values().length, seen.size(), "unreachable phase: " + seen);
    }

    @Test
    void committedDiagramMatchesTheCode(@TempDir Path scratch) throws IOException {
        String dot = Transitions.dot(scratch);
        assertTrue(dot.contains("digraph"), dot);
        if (Boolean.getBoolean("dogama.regenerate")) {
            Files.writeString(COMMITTED_DOT, dot, StandardCharsets.UTF_8);
        }
        assertEquals(Files.readString(COMMITTED_DOT, StandardCharsets.UTF_8), dot,
                "docs/lifecycle.dot is stale: run `mvn -pl modules/lifecycle test -Ddogama.regenerate=true "
                        + "-Dtest=TransitionsTest` and `dot -Tsvg docs/lifecycle.dot -o docs/lifecycle.svg`");
    }
}
