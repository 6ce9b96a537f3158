package io.dogama.agent.policy;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.Plan;
import java.util.List;
import java.util.Objects;

/**
 * A fully approved plan: every rule of SPEC section 8 passed, the image included, and the
 * {@link ContainerSpec} Docker may be asked for is built. Only {@link PlanPolicy#approve} creates
 * one; there is no public constructor.
 */
public final class ApprovedPlan {
    private final ValidatedPlan validated;
    private final ContainerSpec spec;

    ApprovedPlan(ValidatedPlan validated, ContainerSpec spec) {
        this.validated = Objects.requireNonNull(validated, "validated");
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** @return the plan as parsed */
    public Plan plan() {
        return validated.plan();
    }

    /** @return the catalog template */
    public Template template() {
        return validated.template();
    }

    /** @return the instance ID */
    public InstanceId instanceId() {
        return validated.instanceId();
    }

    /** @return the plan digest the agent computed, {@code sha256:<hex>} */
    public String planDigest() {
        return validated.planDigest();
    }

    /** @return a copy of the RFC 8785 canonical plan (without {@code planDigest}), for the registry */
    public byte[] canonicalJson() {
        return validated.canonicalJson();
    }

    /** @return the host bindings the container publishes */
    public List<HostPort> bindings() {
        return validated.bindings();
    }

    /**
     * @return the approved container: name {@code dogama-<id>}, the checked image ID, the template's
     *         command/entrypoint unless the plan repeated them, merged labels, resolved mounts, ...
     */
    public ContainerSpec spec() {
        return spec;
    }

    @Override
    public String toString() {
        return "ApprovedPlan[" + instanceId() + ", " + template().key() + ", " + planDigest() + "]";
    }
}
