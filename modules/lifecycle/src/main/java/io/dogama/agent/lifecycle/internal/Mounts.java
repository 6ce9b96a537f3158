package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.HostConfigView;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.registry.RegistryException;
import java.util.ArrayList;
import java.util.List;

/** Bind sources checked again before every start and restart (SPEC 8.3). */
final class Mounts {
    private final PlanPolicy policy;
    private final Approvals approvals;

    Mounts(PlanPolicy policy, Approvals approvals) {
        this.policy = policy;
        this.approvals = approvals;
    }

    /**
     * SPEC 8.3: bind sources are checked again before every start and restart, against the very
     * mounts the container was created with, with every mount rule of a validation (ancestors,
     * overlaps with the other registered instances included).
     *
     * @param canonicalPlan the plan the container was made from
     * @param container     the container as inspected
     * @throws Abort             {@code plan_rejected} ({@code mount_changed}, {@code not_found},
     *                           {@code unsafe_ancestor}, {@code source_overlaps_instance}, ...)
     * @throws DockerException   if the engine failed while an unreadable record's claims were looked up
     * @throws RegistryException if the registry failed
     */
    void revalidateMounts(String canonicalPlan, ContainerInfo container)
            throws Abort, DockerException, RegistryException {
        List<ContainerSpec.BindMount> created = new ArrayList<>();
        for (HostConfigView.MountView m : container.hostConfig().mounts()) {
            if ("bind".equals(m.type())) {
                created.add(new ContainerSpec.BindMount(m.source(), m.target(), m.readOnly()));
            }
        }
        if (policy.revalidateMounts(Approvals.parseRegistered(canonicalPlan), created, approvals.registered().sources())
                instanceof Outcome.Failed<?> f) {
            throw Abort.of(f);
        }
    }
}
