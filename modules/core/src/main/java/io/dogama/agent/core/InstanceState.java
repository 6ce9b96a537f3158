package io.dogama.agent.core;

/**
 * The persisted state of an instance (SPEC section 10). Transitions are decided by the lifecycle
 * module's state machine only; this enum just names the states so that the registry can store them.
 */
public enum InstanceState {
    /** Intent persisted; the container may or may not exist yet. */
    CREATING,
    /** The container exists and is not running. */
    CREATED,
    /** The container was started by the agent. */
    RUNNING,
    /** The container was stopped by the agent. */
    STOPPED,
    /** A replace is in progress; the record holds the prior plan and container. */
    REPLACING,
    /** A failed replace is being undone. */
    ROLLING_BACK,
    /** The agent will not act until an operator intervenes; the container is left stopped. */
    INTERVENTION_REQUIRED,
    /** Delete in progress. */
    DELETING
}
