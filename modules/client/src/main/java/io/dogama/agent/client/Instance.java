package io.dogama.agent.client;

import java.util.Objects;

/**
 * A registered instance with its container, the {@code <instance>} of SPEC section 2.
 *
 * @param summary   the registry's view
 * @param container the engine's view
 */
public record Instance(InstanceSummary summary, ContainerStatus container) {
    /** @throws NullPointerException if a component is null */
    public Instance {
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(container, "container");
    }

    /** @return the instance ID */
    public String instanceId() {
        return summary.instanceId();
    }

    /** @return the revision */
    public long revision() {
        return summary.revision();
    }

    /** @return the registry state */
    public InstanceState state() {
        return summary.state();
    }

    /** @return the plan digest, {@code sha256:<hex>} */
    public String planDigest() {
        return summary.planDigest();
    }
}
