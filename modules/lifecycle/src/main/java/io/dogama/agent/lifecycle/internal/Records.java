package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.registry.InstanceRecord;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** The registry records an operation builds, and the summary the API lists. */
final class Records {
    private Records() {
    }


    /**
     * @param a          the approved plan
     * @param state      state
     * @param revision   API revision
     * @param container  container ID, if known
     * @param prior      the prior, during a replace
     * @param step       the step marker
     * @return the record for it
     */
    static InstanceRecord record(ApprovedPlan a, InstanceState state, long revision,
            Optional<String> container, Optional<InstanceRecord.Prior> prior, Optional<Step> step) {
        return new InstanceRecord(a.instanceId().value(), container, a.instanceId().containerName(),
                a.template().id(), a.template().version(), a.planDigest(),
                new String(a.canonicalJson(), StandardCharsets.UTF_8), state, revision, prior,
                step.map(Step::marker));
    }

    static InstanceSummary summary(InstanceRecord r) {
        return new InstanceSummary(r.instanceId(), r.templateId(), r.templateVersion(), r.planDigest(), r.revision(),
                r.state());
    }
}
