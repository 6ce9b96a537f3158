package io.dogama.agent.client;

/** The registry state of an instance (SPEC section 10), as the agent reports it in {@code state}. */
public enum InstanceState {
    /** A create is in progress. */
    CREATING,
    /** The container exists and is not running. */
    CREATED,
    /** The container runs. */
    RUNNING,
    /** The container was stopped. */
    STOPPED,
    /** A replace is in progress. */
    REPLACING,
    /** A failed replace is being rolled back. */
    ROLLING_BACK,
    /** An operator must look at the instance; only delete is allowed. */
    INTERVENTION_REQUIRED,
    /** A delete is in progress. */
    DELETING
}
