package io.dogama.agent.e2e;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link AgentUnderTest} per test class: {@code @RegisterExtension static final E2E e2e = new E2E();}
 * starts it before the class's first test and removes everything after its last.
 */
final class E2E extends AgentUnderTest implements BeforeAllCallback, AfterAllCallback {
    E2E() {
        super();
    }

    /** @param agentEnvironment environment variables for the agent's process, e.g. {@code JAVA_TOOL_OPTIONS} */
    E2E(java.util.Map<String, String> agentEnvironment) {
        super(agentEnvironment);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        open(context.getRequiredTestClass().getSimpleName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }
}
