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
 */
final class Deletes {
    private static final System.Logger LOG = System.getLogger(Deletes.class.getName());

    private final Env env;

    Deletes(Env env) {
        this.env = env;
    }

    /** The containers a delete removes, each checked by its registered ID. */
    private record Targets(Env.Identity main, Env.Identity prior) {
        boolean mismatch() {
            return main instanceof Env.Mismatch || prior instanceof Env.Mismatch;
        }
    }

    private Targets targets(InstanceRecord r) throws DockerException {
        Env.Identity main = env.identify(r.containerId(), Env.Expect.current(r));
        Env.Identity prior = r.prior().isPresent()
                ? env.identify(r.prior().get().containerId(), Env.Expect.prior(r, r.prior().get()))
                : new Env.Missing();
        return new Targets(main, prior);
    }

    /**
     * Runs under the instance's exclusive guard.
     *
     * @param t the instance
     * @throws Abort {@code invalid_transition}, {@code identity_mismatch}, or the failure's code
     */
    void delete(Tracked t) throws Abort, DockerException, RegistryException {
        InstanceState deleting = Fsm.request(Optional.of(t.state()), Event.DELETE).persisted().orElseThrow();
        Targets targets = targets(t.record());
        if (targets.mismatch()) {
            throw new Abort(ProblemCode.IDENTITY_MISMATCH);
        }
        if (t.state() != deleting) {
            env.faults.at(Step.DELETE_PERSIST_INTENT);
            t.write(t.record().withState(deleting).withStep(Optional.of(
                    Step.after(Phase.of(t.state()), Step.DELETE_PERSIST_INTENT).marker())));
        }
        finish(t, targets);
    }

    /**
     * Finishes a delete a crash interrupted. Leaves the record if a container under a registered ID
     * is no longer ours (logged).
     *
     * @param t a {@code DELETING} record
     */
    void reconcile(Tracked t) throws Abort, DockerException, RegistryException {
        Targets targets = targets(t.record());
        if (targets.mismatch()) {
            LOG.log(System.Logger.Level.WARNING,
                    "lifecycle: delete of {0} not finished: its registered container is not ours; left", t.id());
            return;
        }
        finish(t, targets);
    }

    private void finish(Tracked t, Targets targets) throws Abort, DockerException, RegistryException {
        if (targets.main() instanceof Env.Match m) {
            env.faults.at(Step.DELETE_REMOVE_CONTAINER);
            env.removeIfPresent(m.info().id());
        }
        if (targets.prior() instanceof Env.Match m) {
            env.faults.at(Step.DELETE_REMOVE_PRIOR);
            env.removeIfPresent(m.info().id());
        }
        Fsm.toAbsent(t.state(), Event.DELETE_SUCCEEDED);
        env.faults.at(Step.DELETE_REMOVE_RECORD);
        t.remove();
        LOG.log(System.Logger.Level.INFO, "lifecycle: {0} deleted (host data kept)", t.id());
    }
}
