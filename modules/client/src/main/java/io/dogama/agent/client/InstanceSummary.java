package io.dogama.agent.client;

import java.util.Objects;

/**
 * A registered instance as {@code GET /v1/instances} lists it: {@link Instance} without the container.
 *
 * @param instanceId      the instance ID
 * @param templateId      its template
 * @param templateVersion its template version
 * @param planDigest      {@code sha256:<hex>} of its current plan
 * @param revision        0 after create, +1 per replace
 * @param state           the registry state
 */
public record InstanceSummary(String instanceId, String templateId, String templateVersion, String planDigest,
        long revision, InstanceState state) {
    /** @throws NullPointerException if a component is null */
    public InstanceSummary {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(templateId, "templateId");
        Objects.requireNonNull(templateVersion, "templateVersion");
        Objects.requireNonNull(planDigest, "planDigest");
        Objects.requireNonNull(state, "state");
    }
}
