package io.dogama.agent.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.GeneralCodingRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The architecture of the agent as ArchUnit rules, parameterised by the root package so that the
 * same rules can be run against a fixture that breaks each of them (see {@code RulesFailTest}).
 */
final class AgentRules {

    /** module → modules it may use (besides itself). Nothing may use {@code app}; only app uses http. */
    static final Map<String, List<String>> ALLOWED = allowed();

    /**
     * Packages each reserved to exactly one module. The JCE is the client's only: the agent's MACs are core's
     * {@code HmacSha256}, so that no start pays for the JCE's providers and policy files (docs/performance.md,
     * session 30).
     */
    static final Map<String, String> EXCLUSIVE_LIBRARIES = Map.of(
            "org.newsclub..", "docker",
            "io.helidon..", "http",
            "org.squirrelframework..", "lifecycle",
            "javax.crypto..", "client");

    private AgentRules() {
    }

    private static Map<String, List<String>> allowed() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("core", List.of());
        // Metrics know nothing of the agent: every module that counts gets a registry handed in (or, like
        // docker and lifecycle, reports to an observer of its own API that app connects).
        m.put("metrics", List.of());
        m.put("audit", List.of("core"));
        m.put("auth", List.of("core"));
        m.put("policy", List.of("core"));
        m.put("registry", List.of("core"));
        m.put("docker", List.of("core"));
        m.put("lifecycle", List.of("core", "policy", "registry", "docker"));
        m.put("http", List.of("core", "auth", "lifecycle", "audit", "metrics"));
        m.put("app", List.of("core", "auth", "policy", "registry", "docker", "lifecycle", "http", "audit", "metrics"));
        // The control plane's client: stands alone, so that it can be shipped without any of the agent.
        m.put("client", List.of());
        return m;
    }

    /** The record writes of lifecycle's {@code Tracked} and the record's state and marker setters. */
    private static final Set<String> TRACKED_WRITES = Set.of("persist", "mark", "remove");
    private static final Set<String> RECORD_SETTERS = Set.of("withState", "withStep");

    /**
     * Issue 14: a state is persisted only by the table's squirrel machine ({@code Transitions}), a
     * step marker only by the step machine ({@code StepMachine}); every other class (the registry's
     * own codec aside) neither calls the record holder's writes nor sets a state or a marker.
     */
    private static ArchRule onlyMachinesPersist(String root) {
        String internal = root + ".lifecycle.internal.";
        DescribedPredicate<JavaClass> machines = DescribedPredicate.describe("the lifecycle machines",
                c -> c.getName().startsWith(internal + "Transitions") || c.getName().startsWith(internal + "StepMachine")
                        || c.getName().equals(internal + "Tracked"));
        DescribedPredicate<JavaMethodCall> persisting = DescribedPredicate.describe("persists a state or a step",
                call -> call.getTarget().getOwner().getName().equals(internal + "Tracked")
                        && TRACKED_WRITES.contains(call.getTarget().getName())
                        || call.getTarget().getOwner().getName().equals(root + ".registry.InstanceRecord")
                        && RECORD_SETTERS.contains(call.getTarget().getName()));
        return noClasses().that().resideInAPackage(root + "..").and().resideOutsideOfPackage(root + ".registry..")
                .and(DescribedPredicate.not(machines))
                .should().callMethodWhere(persisting).allowEmptyShould(true);
    }

    /** One named rule. */
    record Named(String name, ArchRule rule) {
    }

    /**
     * @param root root package, e.g. {@code io.dogama.agent}
     * @return every rule, named
     */
    static List<Named> all(String root) {
        List<Named> rules = new ArrayList<>();
        ALLOWED.forEach((module, deps) -> {
            String[] permitted = new String[deps.size() + 1];
            permitted[0] = root + "." + module + "..";
            for (int i = 0; i < deps.size(); i++) {
                permitted[i + 1] = root + "." + deps.get(i) + "..";
            }
            rules.add(new Named("module graph: " + module,
                    classes().that().resideInAPackage(root + "." + module + "..")
                            .should().onlyDependOnClassesThat(
                                    resideOutsideOfPackage(root + "..").or(resideInAnyPackage(permitted)))
                            .allowEmptyShould(true)));
            rules.add(new Named("internal stays inside: " + module,
                    noClasses().that().resideOutsideOfPackage(root + "." + module + "..")
                            .should().dependOnClassesThat().resideInAPackage(root + "." + module + ".internal..")
                            .allowEmptyShould(true)));
        });
        EXCLUSIVE_LIBRARIES.forEach((library, module) -> rules.add(new Named("only " + module + " uses " + library,
                noClasses().that().resideInAPackage(root + "..")
                        .and().resideOutsideOfPackage(root + "." + module + "..")
                        .should().dependOnClassesThat().resideInAPackage(library)
                        .allowEmptyShould(true))));
        // A module's API and its internal package depend on each other by design; cycles are forbidden
        // between modules.
        rules.add(new Named("no package cycles",
                slices().matching(root + ".(*)..").should().beFreeOfCycles().allowEmptyShould(true)));
        rules.add(new Named("no generic exceptions",
                GeneralCodingRules.NO_CLASSES_SHOULD_THROW_GENERIC_EXCEPTIONS.allowEmptyShould(true)));
        rules.add(new Named("no java.util.logging",
                GeneralCodingRules.NO_CLASSES_SHOULD_USE_JAVA_UTIL_LOGGING.allowEmptyShould(true)));
        rules.add(new Named("only the machines persist states and steps", onlyMachinesPersist(root)));
        rules.add(new Named("no standard streams outside app",
                noClasses().that().resideOutsideOfPackage(root + ".app..")
                        .should(GeneralCodingRules.ACCESS_STANDARD_STREAMS).allowEmptyShould(true)));
        return rules;
    }
}
