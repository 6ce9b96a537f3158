package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

class TransitionsTest {
    /** The committed diagram, relative to this module's directory (surefire's working directory). */
    private static final Path COMMITTED_DOT = Path.of("../../docs/lifecycle.dot");
    private static final Path COMMITTED_SVG = Path.of("../../docs/lifecycle.svg");

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

    /**
     * docs/lifecycle.dot is generated from both squirrel machines (states with their steps), and
     * docs/lifecycle.svg is Graphviz's rendering of it (scripts/test installs Debian's graphviz).
     */
    @Test
    void committedDiagramMatchesTheCode(@TempDir Path scratch) throws IOException, InterruptedException {
        String dot = LifecycleDiagram.dot();
        Path svg = scratch.resolve("lifecycle.svg");
        Path source = scratch.resolve("lifecycle.dot");
        Files.writeString(source, dot, StandardCharsets.UTF_8);
        // dot's output goes to a file: draining a pipe to its end would wait for a hung dot without a bound.
        Path log = scratch.resolve("dot.log");
        Process p = new ProcessBuilder("dot", "-Tsvg", source.toString(), "-o", svg.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("dot -Tsvg did not finish in 60 s:\n" + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
        }
        String said = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        Files.delete(log);
        assertEquals(0, p.exitValue(), "dot -Tsvg failed: " + said);
        if (Boolean.getBoolean("dogama.regenerate")) {
            Files.writeString(COMMITTED_DOT, dot, StandardCharsets.UTF_8);
            Files.copy(svg, COMMITTED_SVG, StandardCopyOption.REPLACE_EXISTING);
        }
        String stale = " is stale: run `mvn -pl modules/lifecycle -am verify -Ddogama.regenerate=true "
                + "-Dtest=TransitionsTest -Dsurefire.failIfNoSpecifiedTests=false`";
        assertEquals(Files.readString(COMMITTED_DOT, StandardCharsets.UTF_8), dot, "docs/lifecycle.dot" + stale);
        assertEquals(Files.readString(COMMITTED_SVG, StandardCharsets.UTF_8),
                Files.readString(svg, StandardCharsets.UTF_8), "docs/lifecycle.svg" + stale);
        for (Step s : Step.values()) {
            assertTrue(dot.contains(s.name() + " -> "), s + " missing from the diagram");
        }
    }
}
