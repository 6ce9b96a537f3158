package io.dogama.agent.core;

import java.util.Objects;

/**
 * One reason a plan was rejected: the field path (e.g. {@code mounts[0].source}) and a stable rule
 * name (e.g. {@code outside_allowed_root}). Never carries the offending value.
 *
 * @param field field path
 * @param rule  rule name
 */
public record Violation(String field, String rule) {
    /** Rejects nulls. */
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(rule, "rule");
    }
}
