package io.dogama.agent.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Proves the rules can fail: the fixture under {@code io.dogama.fixture} breaks each rule on
 * purpose, and every rule that the fixture breaks must report it. A rule that passes here would
 * pass vacuously in production too.
 */
class RulesFailTest {
    private static final String ROOT = "io.dogama.fixture";

    /** Rules the fixture deliberately breaks; all others must pass on it (so the failures are specific). */
    private static final Set<String> BROKEN = Set.of(
            "module graph: core", "module graph: policy", "module graph: registry", "module graph: http",
            "module graph: client",
            "internal stays inside: docker",
            "only docker uses org.newsclub..", "only http uses io.helidon..",
            "only lifecycle uses org.squirrelframework..",
            "only client uses javax.crypto..",
            "no package cycles", "no generic exceptions", "no java.util.logging",
            "only the machines persist states and steps",
            "no standard streams outside app");

    @Test
    void everyRuleIsBrokenByTheFixtureAndReportsIt() {
        JavaClasses fixture = new ClassFileImporter().importPackages(ROOT);
        assertTrue(fixture.size() >= 8, "fixture not imported");
        Map<String, AgentRules.Named> rules = AgentRules.all(ROOT).stream()
                .collect(Collectors.toMap(AgentRules.Named::name, r -> r));
        Set<String> failing = new TreeSet<>();
        for (AgentRules.Named named : rules.values()) {
            try {
                named.rule().check(fixture);
            } catch (AssertionError expected) {
                failing.add(named.name());
            }
        }
        assertEquals(new TreeSet<>(BROKEN), failing);
    }

    @Test
    void generalRulesCoverEveryKindOfRule() {
        // Each kind of rule appears among the broken ones, so no kind is untested.
        for (String kind : new String[] {"module graph", "internal stays inside", "only ", "no package cycles",
            "no generic", "no java.util.logging", "no standard streams", "only the machines"}) {
            assertTrue(BROKEN.stream().anyMatch(n -> n.startsWith(kind)), kind);
        }
    }

    @Test
    void aCleanClassPassesTheModuleGraph() {
        JavaClasses clean = new ClassFileImporter().importClasses(io.dogama.fixture.lifecycle.Fine.class);
        AgentRules.all(ROOT).forEach(r -> r.rule().check(clean));
        assertThrows(AssertionError.class, () -> rulesNamed("no generic exceptions")
                .check(new ClassFileImporter().importClasses(io.dogama.fixture.http.Offender.class)));
    }

    private static com.tngtech.archunit.lang.ArchRule rulesNamed(String name) {
        return AgentRules.all(ROOT).stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow().rule();
    }
}
