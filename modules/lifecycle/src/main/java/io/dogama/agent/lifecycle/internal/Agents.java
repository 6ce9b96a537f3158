package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.lifecycle.LifecycleException;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;

/** Builds the operations for {@link Lifecycle#start}; public only so that the API package can reach it. */
public final class Agents {
    private Agents() {
    }

    /**
     * @param docker   the engine
     * @param registry the registry
     * @param policy   the policy
     * @param listener told each reconciliation action
     * @return the operations, after the start-up reconciliation
     * @throws LifecycleException as {@link Lifecycle#start}
     */
    public static AgentOperations start(DockerEngine docker, Registry registry, PlanPolicy policy,
            Reconciliations listener) throws LifecycleException {
        return start(docker, registry, policy, Faults.NONE, listener);
    }

    static Operations start(DockerEngine docker, Registry registry, PlanPolicy policy, Faults faults)
            throws LifecycleException {
        return start(docker, registry, policy, faults, Reconciliations.NONE);
    }

    static Operations start(DockerEngine docker, Registry registry, PlanPolicy policy, Faults faults,
            Reconciliations listener) throws LifecycleException {
        Operations ops = new Operations(docker, registry, policy, faults, listener);
        try {
            docker.ping();
        } catch (DockerException e) {
            throw new LifecycleException("the Docker engine does not answer; not starting", e);
        }
        try {
            ops.reconciler().run();
        } catch (RegistryException e) {
            throw new LifecycleException("the registry cannot be listed; not starting", e);
        }
        return ops;
    }
}
