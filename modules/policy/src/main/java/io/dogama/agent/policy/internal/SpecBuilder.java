package io.dogama.agent.policy.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Plan;
import io.dogama.agent.policy.Template;
import java.util.ArrayList;
import java.util.List;

/**
 * Validated plan + template + the fixed baseline of SPEC section 8 = the container. The only place
 * that decides what Docker is asked for; everything privileged comes from the template, never from
 * the plan (a plan's command/entrypoint/capAdd were checked equal to the template's).
 */
public final class SpecBuilder {
    private SpecBuilder() {
    }

    /**
     * @param plan       the validated plan
     * @param t          its template
     * @param instanceId the instance
     * @param planDigest the computed digest
     * @param imageId    the checked image ID
     * @param mounts     resolved mounts
     * @param ports      published ports
     * @return the container spec
     */
    public static ContainerSpec build(Plan plan, Template t, InstanceId instanceId, String planDigest, String imageId,
            List<ContainerSpec.BindMount> mounts, List<ContainerSpec.PublishedPort> ports) {
        List<ContainerSpec.TmpfsMount> tmpfs = new ArrayList<>();
        t.tmpfs().forEach((target, rule) -> tmpfs.add(new ContainerSpec.TmpfsMount(target, rule.sizeBytes())));
        Plan.Resources r = plan.resources();
        return new ContainerSpec(
                instanceId.containerName(),
                imageId,
                t.command(),
                t.entrypoint(),
                plan.env(),
                plan.user(),
                t.workingDir(),
                Labels.merge(plan.labels(), instanceId, t.id(), t.version(), planDigest),
                t.capAdd(),
                mounts,
                tmpfs,
                ports,
                new ContainerSpec.Limits(r.memoryBytes(), r.nanoCpus(), r.pidsLimit()),
                plan.networks(),
                t.readOnlyRootfs(),
                t.restartPolicy(),
                t.stopSignal());
    }
}
