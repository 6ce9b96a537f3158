package io.dogama.agent.lifecycle;

import io.dogama.agent.core.InstanceState;
import java.util.Objects;

/**
 * The {@code <summary>} of SPEC section 2.
 *
 * @param instanceId      instance ID
 * @param templateId      template ID
 * @param templateVersion template version
 * @param planDigest      {@code sha256:<hex>}
 * @param revision        registry revision
 * @param state           lifecycle state
 */
public record InstanceSummary(String instanceId, String templateId, String templateVersion, String planDigest,
        long revision, InstanceState state) {
    /** Rejects nulls. */
    public InstanceSummary {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(templateId, "templateId");
        Objects.requireNonNull(templateVersion, "templateVersion");
        Objects.requireNonNull(planDigest, "planDigest");
        Objects.requireNonNull(state, "state");
    }
}
