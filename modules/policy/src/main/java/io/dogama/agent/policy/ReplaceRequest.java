package io.dogama.agent.policy;

import io.dogama.agent.core.Plan;
import java.util.Objects;

/**
 * The body of a replace, {@code {"plan":{...},"expectedRevision":n}} (SPEC section 2).
 *
 * @param plan             the new plan, parsed but not validated
 * @param expectedRevision the revision the caller believes is current, non-negative
 */
public record ReplaceRequest(Plan plan, long expectedRevision) {
    /** Rejects null and negative revisions. */
    public ReplaceRequest {
        Objects.requireNonNull(plan, "plan");
        if (expectedRevision < 0) {
            throw new IllegalArgumentException("policy: negative revision");
        }
    }
}
