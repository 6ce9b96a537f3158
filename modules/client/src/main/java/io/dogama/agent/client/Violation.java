package io.dogama.agent.client;

import java.util.Objects;

/**
 * One violation of a {@code plan_rejected} problem.
 *
 * @param field the plan field, e.g. {@code mounts[0].source}
 * @param rule  the rule it breaks, e.g. {@code outside_allowed_root} (rule names: catalog/README.md)
 */
public record Violation(String field, String rule) {
    /** @throws NullPointerException if a component is null */
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(rule, "rule");
    }
}
