package io.dogama.agent.lifecycle;

import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.lifecycle.internal.Agents;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.registry.Registry;

/**
 * Entry point of the lifecycle: reconciles the registry with Docker, then hands out the
 * operations. The failure semantics of every operation are written down in
 * {@code docs/lifecycle.md}.
 */
public final class Lifecycle {

    /** Stop timeout used for the old container during a replace (and when a rollback gives up), in seconds. */
    public static final int REPLACE_STOP_TIMEOUT_SECONDS = 30;

    private Lifecycle() {
    }

    /**
     * Runs the start-up reconciliation of SPEC section 10, then returns the operations. Every
     * registry record is checked against Docker: an interrupted create is undone (its container, if
     * any, removed, its intent dropped), an interrupted replace or rollback is rolled back, an
     * interrupted delete is finished, and drift of a settled instance is only logged. A record whose
     * MAC fails is left alone (it reports {@code intervention_required}). A container that is not in
     * the registry is never touched, even if it carries the agent's labels. A record whose
     * reconciliation fails half-way is left in its transitional state (logged) and retried at the
     * next start; the other records are still reconciled.
     *
     * <p>The returned operations are thread-safe; at most one mutating operation runs per instance at
     * a time, a second one is answered {@code instance_busy}.
     *
     * @param docker   the engine client; the caller keeps ownership (and closes it)
     * @param registry the open registry; the caller keeps ownership (and closes it)
     * @param policy   the validator
     * @return the operations
     * @throws LifecycleException if the engine does not answer its ping, or the registry cannot be
     *                            listed: the agent must not start then
     */
    public static AgentOperations start(DockerEngine docker, Registry registry, PlanPolicy policy)
            throws LifecycleException {
        return Agents.start(docker, registry, policy, Reconciliations.NONE);
    }

    /**
     * As {@link #start(DockerEngine, Registry, PlanPolicy)}, telling {@code listener} what the
     * reconciliation did to each record (the agent writes it to its audit log).
     *
     * @param docker   the engine client; the caller keeps ownership (and closes it)
     * @param registry the open registry; the caller keeps ownership (and closes it)
     * @param policy   the validator
     * @param listener told each reconciliation action
     * @return the operations
     * @throws LifecycleException as {@link #start(DockerEngine, Registry, PlanPolicy)}
     */
    public static AgentOperations start(DockerEngine docker, Registry registry, PlanPolicy policy,
            Reconciliations listener) throws LifecycleException {
        return Agents.start(docker, registry, policy, listener);
    }

    /**
     * Runs every row of the transition table through the state machine library, for the runtime
     * image's self-check (a library that cannot work inside the image shows up here).
     *
     * @return the number of transitions checked
     * @throws IllegalStateException if the library answers differently from the table
     */
    public static int verifyStateMachine() {
        return io.dogama.agent.lifecycle.internal.StateMachineCheck.run();
    }
}
