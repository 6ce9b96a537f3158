package io.dogama.agent.lifecycle;

/**
 * Told what the start-up reconciliation did to each record, and of each container with the agent's labels that no
 * record names (for the audit log, SPEC section 14); and what a request's own recovery of a record left unfinished
 * did ({@link #resolvedByRequest}).
 * Called on the starting thread, once per action; it must not throw (a throw is logged and ignored).
 */
@FunctionalInterface
public interface Reconciliations {
    /** Hears nothing. */
    Reconciliations NONE = (instanceId, action) -> {
    };

    /**
     * @param instanceId the record's key (for a tampered record possibly not a valid ID)
     * @param action     what was done or found
     */
    void reconciled(String instanceId, Action action);

    /**
     * Told what a request did first, on a record an earlier request left unfinished (a replace the engine failed
     * even to roll back): the same recovery the start-up reconciliation runs, run by the next mutation on the
     * instance. Called on the request's thread; the same rules as {@link #reconciled}.
     *
     * @param instanceId the record's key
     * @param action     what was done
     */
    default void resolvedByRequest(String instanceId, Action action) {
        reconciled(instanceId, action);
    }

    /** What the reconciliation did to one record. */
    enum Action {
        /** An interrupted create was undone (its container removed, the intent dropped). */
        CREATE_UNDONE,
        /** An interrupted replace or rollback was rolled back. */
        REPLACE_ROLLED_BACK,
        /** An interrupted replace whose prior container was already gone was finished (its new plan committed). */
        REPLACE_FINISHED,
        /**
         * An interrupted replace could be neither finished nor rolled back safely: every container the record names is
         * stopped, none removed, and the instance answers {@code intervention_required} until an operator deletes it.
         */
        INTERVENTION_REQUIRED,
        /** An interrupted delete was finished. */
        DELETE_FINISHED,
        /** An interrupted operation could not be resolved; left as it is until the next start. */
        LEFT_UNRESOLVED,
        /** The record fails authentication; left for an operator. */
        RECORD_TAMPERED,
        /** A settled instance's registered container is missing. */
        CONTAINER_MISSING,
        /** The container under the registered ID is not the instance's; not touched. */
        CONTAINER_NOT_OURS,
        /** A settled instance's container runs when it should not, or the reverse; only logged. */
        STATE_DRIFT,
        /**
         * A container carries the agent's labels for an instance no record names (a lost or rolled-back registry);
         * never touched. Told with the instance ID its label gives.
         */
        UNREGISTERED_CONTAINER;

        /** @return the lower-case code written in the audit line */
        public String code() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
