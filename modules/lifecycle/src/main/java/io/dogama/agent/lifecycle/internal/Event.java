package io.dogama.agent.lifecycle.internal;

/**
 * What can happen to an instance: requests (upper half) and the outcomes of the Docker steps that
 * a request or the start-up reconciliation drives (lower half).
 */
enum Event {
    CREATE,
    START,
    STOP,
    RESTART,
    REPLACE,
    DELETE,

    CREATE_SUCCEEDED,
    CREATE_FAILED,
    REPLACED_RUNNING,
    REPLACED_CREATED,
    REPLACE_FAILED,
    ROLLED_BACK_RUNNING,
    ROLLED_BACK_STOPPED,
    ROLLBACK_FAILED,
    DELETE_SUCCEEDED
}
