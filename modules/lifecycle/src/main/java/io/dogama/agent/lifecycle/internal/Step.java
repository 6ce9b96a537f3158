package io.dogama.agent.lifecycle.internal;

/**
 * Every step of create, replace, rollback and delete, in the order the operations run them. The
 * fault seam ({@link Faults}) is called with a step right before the step acts, so a test can fail
 * or halt the operation at exactly that point. {@link #marker()} is what the registry's
 * {@code step} field holds while the step may be in progress; recovery reads it to know whether a
 * container may exist that the registry does not yet name.
 */
enum Step {
    // create (SPEC 10: intent, container, ID; a failed create is undone)
    /** Insert the {@code CREATING} intent. */
    CREATE_PERSIST_INTENT("create:persist", Family.CREATE),
    /** Create the container {@code dogama-X}. */
    CREATE_CONTAINER("create:container", Family.CREATE),
    /** Record the container ID and {@code CREATED}. */
    CREATE_COMMIT("create:commit", Family.CREATE),
    /** Undo: remove the container this create made. */
    CREATE_UNDO_REMOVE("create:undo-remove", Family.CREATE),
    /** Undo: drop the intent. */
    CREATE_UNDO_DROP("create:undo-drop", Family.CREATE),

    // replace
    /** Persist {@code REPLACING} with the prior plan and container. */
    REPLACE_PERSIST_INTENT("replace:persist", Family.REPLACE),
    /** Stop the old container. */
    REPLACE_STOP_OLD("replace:stop-old", Family.REPLACE),
    /** Rename the old container to {@code dogama-X-r<rev>}. */
    REPLACE_RENAME_OLD("replace:rename-old", Family.REPLACE),
    /** Create the new container {@code dogama-X}. */
    REPLACE_CREATE_NEW("replace:create-new", Family.REPLACE),
    /** Record the new container's ID. */
    REPLACE_RECORD_NEW("replace:record-new", Family.REPLACE),
    /** Start the new container (only if the old one was running). */
    REPLACE_START_NEW("replace:start-new", Family.REPLACE),
    /** Remove the old container. */
    REPLACE_REMOVE_OLD("replace:remove-old", Family.REPLACE),
    /** Commit revision + 1 and drop the prior. */
    REPLACE_COMMIT("replace:commit", Family.REPLACE),

    // rollback (of a replace that did not commit)
    /** Persist {@code ROLLING_BACK}. */
    ROLLBACK_PERSIST("rollback:persist", Family.ROLLBACK),
    /** Remove the new container. */
    ROLLBACK_REMOVE_NEW("rollback:remove-new", Family.ROLLBACK),
    /** Rename the old container back to {@code dogama-X}. */
    ROLLBACK_RENAME_OLD("rollback:rename-old", Family.ROLLBACK),
    /** The old container is gone: create it again from the prior plan. */
    ROLLBACK_RECREATE_OLD("rollback:recreate-old", Family.ROLLBACK),
    /** Record the recreated container's ID. */
    ROLLBACK_RECORD_OLD("rollback:record-old", Family.ROLLBACK),
    /** Start the old container again (only if it was running). */
    ROLLBACK_START_OLD("rollback:start-old", Family.ROLLBACK),
    /** Record the prior plan as current, revision unchanged. */
    ROLLBACK_COMMIT("rollback:commit", Family.ROLLBACK),
    /** The rollback failed or was unsafe: stop every container of the instance. */
    ROLLBACK_STOP_ALL("rollback:stop-all", Family.ROLLBACK),
    /** Persist {@code INTERVENTION_REQUIRED}. */
    ROLLBACK_GIVE_UP("rollback:give-up", Family.ROLLBACK),

    // delete
    /** Persist {@code DELETING}. */
    DELETE_PERSIST_INTENT("delete:persist", Family.DELETE),
    /** Remove the registered container. */
    DELETE_REMOVE_CONTAINER("delete:remove-container", Family.DELETE),
    /** Remove the prior container an unfinished replace left (only from {@code INTERVENTION_REQUIRED}). */
    DELETE_REMOVE_PRIOR("delete:remove-prior", Family.DELETE),
    /** End the registration. */
    DELETE_REMOVE_RECORD("delete:remove-record", Family.DELETE);

    /** Which operation a step belongs to. */
    enum Family {
        CREATE, REPLACE, ROLLBACK, DELETE
    }

    private final String marker;
    private final Family family;

    Step(String marker, Family family) {
        this.marker = marker;
        this.family = family;
    }

    /** @return the registry {@code step} value while this step may be in progress */
    String marker() {
        return marker;
    }

    /** @return the operation the step belongs to */
    Family family() {
        return family;
    }
}
