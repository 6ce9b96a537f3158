package io.dogama.agent.policy;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.Plan;
import java.util.List;
import java.util.Objects;

/**
 * A plan that passed every rule of SPEC section 8 that can be checked before touching Docker (phase
 * one). Only {@link PlanPolicy#validate} creates one; the image may now be pulled, and
 * {@link PlanPolicy#approve} then checks what it resolved to (phase two). There is no public
 * constructor, so holding one proves the checks ran.
 */
public final class ValidatedPlan {
    private final Plan plan;
    private final Template template;
    private final InstanceId instanceId;
    private final String planDigest;
    private final byte[] canonicalJson;
    private final List<ContainerSpec.BindMount> mounts;
    private final List<ContainerSpec.PublishedPort> ports;

    ValidatedPlan(Plan plan, Template template, String planDigest, byte[] canonicalJson,
            List<ContainerSpec.BindMount> mounts, List<ContainerSpec.PublishedPort> ports) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.template = Objects.requireNonNull(template, "template");
        this.instanceId = new InstanceId(plan.instanceId());
        this.planDigest = Objects.requireNonNull(planDigest, "planDigest");
        this.canonicalJson = canonicalJson.clone();
        this.mounts = List.copyOf(mounts);
        this.ports = List.copyOf(ports);
    }

    /** @return the plan as parsed */
    public Plan plan() {
        return plan;
    }

    /** @return the catalog template the plan was checked against */
    public Template template() {
        return template;
    }

    /** @return the instance ID */
    public InstanceId instanceId() {
        return instanceId;
    }

    /** @return the plan digest the agent computed, {@code sha256:<hex>} */
    public String planDigest() {
        return planDigest;
    }

    /** @return a copy of the RFC 8785 canonical plan (without {@code planDigest}), for the registry */
    public byte[] canonicalJson() {
        return canonicalJson.clone();
    }

    /** @return the image reference to pull or inspect (equal to the template's) */
    public String imageReference() {
        return template.image();
    }

    /** @return the bind mounts with their sources resolved to real paths, in plan order */
    public List<ContainerSpec.BindMount> mounts() {
        return mounts;
    }

    /** @return the host bindings the plan publishes, in plan order */
    public List<HostPort> bindings() {
        return ports.stream().map(ContainerSpec.PublishedPort::host).toList();
    }

    List<ContainerSpec.PublishedPort> publishedPorts() {
        return ports;
    }

    @Override
    public String toString() {
        return "ValidatedPlan[" + instanceId + ", " + template.key() + ", " + planDigest + "]";
    }
}
