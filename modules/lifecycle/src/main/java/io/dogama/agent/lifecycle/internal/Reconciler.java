package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Labels;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The start-up reconciliation of SPEC 10: every registry record is checked against the engine, and
 * whatever a crash interrupted is finished or undone by the same step machine the operations run,
 * started where {@link Step#recover} says (each step looks at the engine first, so it can run again
 * after any crash):
 * <ul>
 * <li>{@code CREATING}: the create is undone (its container removed, the intent dropped);</li>
 * <li>{@code REPLACING}, {@code ROLLING_BACK}: the replace is rolled back, unless its new container was recorded
 *     and its prior container is gone: then it is finished ({@link Step#REPLACE_RESUME});</li>
 * <li>{@code DELETING}: the delete is finished;</li>
 * <li>any other state: the container is inspected by its registered ID and drift is logged,
 *     nothing is changed.</li>
 * </ul>
 * A record whose MAC fails is left alone. Containers the registry does not name are never acted on,
 * except for the crash windows the record itself declares (see {@link Identities#unrecordedNeverStarted}); those that
 * carry the agent's labels for an instance no record names are told, one by one, and counted in the log
 * (see {@link #unregistered}).
 */
final class Reconciler {
    private static final System.Logger LOG = System.getLogger(Reconciler.class.getName());

    private final Registry registry;
    private final Identities ids;
    private final Creates creates;
    private final Replaces replaces;
    private final Deletes deletes;
    private final Reconciliations listener;

    Reconciler(Registry registry, Identities ids, Creates creates, Replaces replaces, Deletes deletes,
            Reconciliations listener) {
        this.registry = registry;
        this.ids = ids;
        this.creates = creates;
        this.replaces = replaces;
        this.deletes = deletes;
        this.listener = listener;
    }

    private void tell(String id, Reconciliations.Action action) {
        try {
            listener.reconciled(id, action);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "lifecycle: the reconciliation listener failed", e);
        }
    }

    void run() throws RegistryException {
        int records = 0;
        int repaired = 0;
        Set<String> named = new HashSet<>();
        for (Lookup l : registry.all()) {
            records++;
            named.add(l.instanceId());
            switch (l) {
                case Lookup.Tampered t -> {
                    LOG.log(Level.WARNING, "lifecycle: a registry record fails authentication; left for an operator");
                    tell(t.instanceId(), Reconciliations.Action.RECORD_TAMPERED);
                }
                case Lookup.Absent a -> {
                }
                case Lookup.Found f -> {
                    if (reconcile(Tracked.of(registry, f))) {
                        repaired++;
                    }
                }
            }
        }
        LOG.log(Level.INFO, "lifecycle: reconciled {0} record(s), {1} interrupted operation(s) resolved", records,
                repaired);
        unregistered(named);
    }

    /**
     * Containers that carry the agent's managed label for an instance no record names: what a registry that was
     * lost (made anew) or put back from an older copy leaves behind, still running on host paths and ports the
     * agent no longer knows are taken. SPEC 5: never touched, listed or adopted; so they are only told (an audit
     * line each) and counted in a warning, at every start, so that an operator hears of them now rather than from a
     * name conflict or a shared folder later. Labels prove nothing: the instance ID is the label's word.
     */
    private void unregistered(Set<String> named) {
        List<ContainerSummary> managed;
        try {
            managed = ids.managed();
        } catch (DockerException | RuntimeException e) {
            Problems.log("the look for containers no record names", e);
            return;
        }
        int found = 0;
        for (ContainerSummary c : managed) {
            String instance = c.labels().get(Labels.INSTANCE_ID);
            if (instance == null || !named.contains(instance)) {
                found++;
                tell(instance == null ? "" : instance, Reconciliations.Action.UNREGISTERED_CONTAINER);
            }
        }
        if (found > 0) {
            LOG.log(Level.WARNING, "lifecycle: {0} container(s) carry the agent''s labels for an instance no registry "
                    + "record names (a registry lost or put back from an older copy?); never touched: remove them "
                    + "or restore the registry", found);
        }
    }

    /** @return true if an interrupted operation was found */
    private boolean reconcile(Tracked t) {
        String id = t.id();
        try {
            // The step protocol decides where recovery starts (Step.recover); this only dispatches.
            Step.Decision d = Step.recover(Phase.of(t.state()), Step.ofMarker(t.record().step()));
            if (!(d instanceof Step.Go go)) {
                drift(t);
                return false;
            }
            Step.Decision end = switch (go.step().family()) {
                case CREATE -> creates.recover(t);
                case REPLACE, ROLLBACK -> replaces.recover(t);
                case DELETE -> deletes.recover(t);
            };
            if (end instanceof Step.End) {
                LOG.log(Level.INFO, "lifecycle: {0}: interrupted operation resolved", id);
                tell(id, switch (go.step().family()) {
                    case CREATE -> Reconciliations.Action.CREATE_UNDONE;
                    case REPLACE, ROLLBACK -> replaceAction((Step.End) end);
                    case DELETE -> Reconciliations.Action.DELETE_FINISHED;
                });
            } else {
                LOG.log(Level.WARNING, "lifecycle: {0}: interrupted operation left as it is until the next start", id);
                tell(id, Reconciliations.Action.LEFT_UNRESOLVED);
            }
        } catch (DockerException | RuntimeException e) {
            Problems.log("reconciliation of " + id + " (left as it is until the next start)", e);
            tell(id, Reconciliations.Action.LEFT_UNRESOLVED);
        }
        return true;
    }

    /** @return what a replace's or rollback's run that ended did, by the table event it ended with */
    static Reconciliations.Action replaceAction(Step.End end) {
        return switch (end.ifStopped()) {
            case REPLACED_CREATED, REPLACED_RUNNING -> Reconciliations.Action.REPLACE_FINISHED;
            case ROLLED_BACK_RUNNING, ROLLED_BACK_STOPPED -> Reconciliations.Action.REPLACE_ROLLED_BACK;
            case ROLLBACK_FAILED -> Reconciliations.Action.INTERVENTION_REQUIRED;
            default -> throw new IllegalStateException("lifecycle: a replace does not end with " + end);
        };
    }

    private void drift(Tracked t) throws DockerException {
        switch (ids.identify(t.record().containerId(), Identities.Expect.current(t.record()))) {
            case Identities.Match m -> {
                boolean running = m.info().state().running();
                boolean expected = t.state() == InstanceState.RUNNING;
                if (running != expected) {
                    LOG.log(Level.INFO, "lifecycle: {0} is {1} but its container is {2}", t.id(), t.state(),
                            m.info().state().status());
                    tell(t.id(), Reconciliations.Action.STATE_DRIFT);
                }
            }
            case Identities.Missing m -> {
                LOG.log(Level.WARNING, "lifecycle: {0}: its registered container is missing", t.id());
                tell(t.id(), Reconciliations.Action.CONTAINER_MISSING);
            }
            case Identities.Mismatch m -> {
                LOG.log(Level.WARNING, "lifecycle: {0}: the container under its registered ID is not ours; not touched",
                        t.id());
                tell(t.id(), Reconciliations.Action.CONTAINER_NOT_OURS);
            }
        }
    }
}
