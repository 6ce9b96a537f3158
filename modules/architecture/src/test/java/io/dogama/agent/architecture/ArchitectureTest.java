package io.dogama.agent.architecture;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Runs every architecture rule against the production classes of all modules. */
class ArchitectureTest {
    /** Fewer classes than this means the import silently missed modules. */
    private static final int MIN_CLASSES = 40;

    private static JavaClasses production;

    @BeforeAll
    static void importProduction() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.dogama.agent");
    }

    @Test
    void importIsNotVacuous() {
        assertTrue(production.size() > MIN_CLASSES, "imported only " + production.size() + " classes");
        for (String module : AgentRules.ALLOWED.keySet()) {
            assertTrue(production.containPackage("io.dogama.agent." + module), "module missing: " + module);
        }
    }

    @TestFactory
    Stream<DynamicTest> productionFollowsEveryRule() {
        return AgentRules.all("io.dogama.agent").stream()
                .map(named -> DynamicTest.dynamicTest(named.name(), () -> named.rule().check(production)));
    }
}
