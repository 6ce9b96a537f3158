package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.Optional;

/**
 * DeleteContainer (SPEC 10): {@code DELETING}, remove the container (force; never its volumes or
 * any host path), end the registration. A registered container that is already gone is fine; a
 * container under the registered ID that is not ours, or one that merely carries the name, is never
 * touched. A delete that fails after {@code DELETING} is finished by asking again or at start-up.
 * The steps are {@link Step}'s, run by {@link StepMachine}.
 */
final class Deletes {
    private static final System.Logger LOG = System.getLogger(Deletes.class.getName());

    private final Identities ids;
    private final Faults faults;

    Deletes(Identities ids, Faults faults) {
        this.ids = ids;
        this.faults = faults;
    }

    /** The containers a delete removes, each checked by its registered ID. */
    private record Targets(Identities.Identity main, Identities.Identity prior) {
        boolean mismatch() {
            return main instanceof Identities.Mismatch || prior instanceof Identities.Mismatch;
        }
    }

    private Targets targets(InstanceRecord r) throws DockerException {
        Identities.Identity main = ids.identify(r.containerId(), Identities.Expect.current(r));
        Identities.Identity prior = r.prior().isPresent()
                ? ids.identify(r.prior().get().containerId(), Identities.Expect.prior(r, r.prior().get()))
                : new Identities.Missing();
        return new Targets(main, prior);
    }

    /**
     * Runs under the instance's exclusive guard.
     *
     * @param t the instance
     * @throws Abort {@code invalid_transition}, {@code identity_mismatch}, or the failure's code
     */
    void delete(Tracked t) throws Abort, DockerException, RegistryException {
        Transitions.request(Optional.of(t.state()), Event.DELETE);
        Targets targets = targets(t.record());
        if (targets.mismatch()) {
            throw new Abort(ProblemCode.IDENTITY_MISMATCH);
        }
        // A delete asked again finishes where the first one stopped, as the reconciliation would.
        Step.Decision start = t.state() == InstanceState.DELETING
                ? Step.recover(Phase.DELETING, Step.ofMarker(t.record().step()))
                : new Step.Go(Step.DELETE_PERSIST_INTENT, false);
        StepMachine.Run run = new StepMachine.Run("delete " + t.id(), t, new Steps(targets), faults);
        if (!(StepMachine.run((Step.Go) start, run) instanceof Step.End)) {
            Exception failure = run.failure().orElseThrow();
            throw failure instanceof Abort a ? a : new Abort(Problems.code(failure));
        }
    }

    /**
     * Finishes a delete a crash interrupted, from {@link Step#recover}. Leaves the record if a
     * container under a registered ID is no longer ours (logged).
     *
     * @param t a {@code DELETING} record
     * @return how the run ended
     */
    Step.Decision recover(Tracked t) throws DockerException {
        Targets targets = targets(t.record());
        if (targets.mismatch()) {
            LOG.log(System.Logger.Level.WARNING,
                    "lifecycle: delete of {0} not finished: its registered container is not ours; left", t.id());
            return new Step.Keep();
        }
        Step.Go start = (Step.Go) Step.recover(Phase.of(t.state()), Step.ofMarker(t.record().step()));
        return StepMachine.run(start, new StepMachine.Run("delete " + t.id(), t, new Steps(targets), faults));
    }

    /** The delete steps, acting on the containers checked before the run. */
    private final class Steps implements StepMachine.Actions {
        private final Targets targets;

        Steps(Targets targets) {
            this.targets = targets;
        }

        @Override
        public boolean holds(Step step, StepMachine.Run run) {
            InstanceRecord r = run.tracked().record();
            return switch (step.guard()) {
                case ALWAYS -> true;
                case CURRENT_RECORDED -> r.containerId().isPresent();
                case OLD_RECORDED -> r.prior().flatMap(InstanceRecord.Prior::containerId).isPresent();
                default -> throw new IllegalStateException("lifecycle: " + step.guard() + " in a delete");
            };
        }

        @Override
        public void act(Step step, StepMachine.Run run) throws Abort, DockerException, RegistryException {
            switch (step) {
                case DELETE_PERSIST_INTENT -> run.fire(r -> r, Event.DELETE);
                case DELETE_REMOVE_CONTAINER -> remove(targets.main());
                case DELETE_REMOVE_PRIOR -> remove(targets.prior());
                case DELETE_REMOVE_RECORD -> {
                    run.fire(r -> r, run.ending().ifStopped());
                    LOG.log(System.Logger.Level.INFO, "lifecycle: {0} deleted (host data kept)", run.tracked().id());
                }
                default -> throw new IllegalStateException("lifecycle: " + step + " in a delete");
            }
        }

        /** Only a container checked to be ours is removed; one already gone is fine. */
        private void remove(Identities.Identity target) throws DockerException {
            if (target instanceof Identities.Match m) {
                ids.removeIfPresent(m.info().id());
            }
        }
    }
}
