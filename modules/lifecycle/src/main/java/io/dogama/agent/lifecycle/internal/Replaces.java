package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * ReplaceInstance and its rollback (SPEC 10). A replace that does not reach its commit is rolled
 * back, in the request or, after a crash, by the start-up reconciliation; each rollback step looks
 * at the engine first, so running it again after a crash at any point is safe. A rollback that is
 * not safe or fails leaves every container of the instance stopped in
 * {@code INTERVENTION_REQUIRED}.
 *
 * <p>During a replace the record's main fields hold the NEW plan (and, once known, the new
 * container's ID); {@link InstanceRecord.Prior} holds the old plan and container.
 */
final class Replaces {
    private static final System.Logger LOG = System.getLogger(Replaces.class.getName());

    private final Env env;

    Replaces(Env env) {
        this.env = env;
    }

    /** What this process knows about a replace beyond the record (an ID whose write failed, a lost answer). */
    static final class Attempt {
        private Optional<String> newId = Optional.empty();
        private boolean createOutcomeUnknown;
    }

    /**
     * Runs under the instance's exclusive guard.
     *
     * @param t                the instance
     * @param plan             the new plan, its instanceId already checked against the path
     * @param expectedRevision the revision the caller saw
     * @return the instance at revision n+1
     * @throws Abort the refusal; after a failed-and-rolled-back replace the failure's code, after a
     *               rollback that was not possible {@code intervention_required}
     */
    InstanceView replace(Tracked t, Plan plan, long expectedRevision)
            throws Abort, DockerException, RegistryException {
        InstanceRecord old = t.record();
        InstanceState replacing = Fsm.request(Optional.of(old.state()), Event.REPLACE).persisted().orElseThrow();
        if (expectedRevision != old.revision()) {
            throw new Abort(ProblemCode.REVISION_CONFLICT);
        }
        Optional<ContainerInfo> current = switch (env.identify(old.containerId(), Env.Expect.current(old))) {
            case Env.Match m -> Optional.of(m.info());
            case Env.Mismatch m -> throw new Abort(ProblemCode.IDENTITY_MISMATCH);
            case Env.Missing m -> {
                // Gone: the replace may recreate it, unless a container we do not know holds the name.
                if (nameTaken(old.containerName())) {
                    throw new Abort(ProblemCode.IDENTITY_MISMATCH);
                }
                yield Optional.empty();
            }
        };
        ApprovedPlan next = env.approve(plan, current.stream().map(ContainerInfo::id).toList(), "plan.");

        InstanceRecord.Prior prior = new InstanceRecord.Prior(old.canonicalPlan(), old.planDigest(),
                old.templateId(), old.templateVersion(), current.map(ContainerInfo::id),
                new InstanceId(old.instanceId()).priorContainerName(old.revision()),
                current.map(c -> c.state().running()).orElse(false));
        env.faults.at(Step.REPLACE_PERSIST_INTENT);
        t.write(Env.record(next, replacing, old.revision(), Optional.empty(), Optional.of(prior),
                Optional.of(Step.after(Phase.of(old.state()), Step.REPLACE_PERSIST_INTENT))));

        Attempt attempt = new Attempt();
        try {
            forward(t, next, prior, attempt);
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log("replace " + old.instanceId(), e);
            if (!rollback(t, attempt)) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            throw e instanceof Abort a ? a : new Abort(Problems.code(e));
        }
        return env.view(t.record());
    }

    /**
     * The step protocol's answer: after the persisted (state, marker), may a container exist that an
     * engine create made and the registry does not name?
     */
    private static boolean searches(InstanceRecord r) {
        return Step.recover(Phase.of(r.state()), Step.ofMarker(r.step())) instanceof Step.Go g && g.search();
    }

    private boolean nameTaken(String name) throws DockerException {
        try {
            return env.docker.inspectContainer(name).isPresent();
        } catch (DockerProtocolException e) {
            // Something holds the name that we cannot even describe: not ours.
            return true;
        }
    }

    private void forward(Tracked t, ApprovedPlan next, InstanceRecord.Prior prior, Attempt attempt)
            throws Abort, DockerException, RegistryException {
        if (prior.containerId().isPresent()) {
            String oldId = prior.containerId().get();
            env.faults.at(Step.REPLACE_STOP_OLD);
            env.docker.stopContainer(oldId, Lifecycle.REPLACE_STOP_TIMEOUT_SECONDS);

            env.faults.at(Step.REPLACE_RENAME_OLD);
            t.mark(Optional.of(Step.REPLACE_RENAME_OLD));
            env.docker.renameContainer(oldId, prior.containerName());
        }

        env.faults.at(Step.REPLACE_CREATE_NEW);
        t.mark(Optional.of(Step.REPLACE_CREATE_NEW));
        try {
            attempt.newId = Optional.of(env.docker.createContainer(next.spec()));
        } catch (DockerTimeoutException | DockerUnavailableException | DockerProtocolException e) {
            attempt.createOutcomeUnknown = true;
            throw e;
        }

        env.faults.at(Step.REPLACE_RECORD_NEW);
        t.write(t.record().withContainerId(attempt.newId)
                .withStep(Optional.of(prior.wasRunning() ? Step.REPLACE_START_NEW : Step.REPLACE_REMOVE_OLD)
                        .flatMap(Step::held).map(Step::marker)));

        if (prior.wasRunning()) {
            env.revalidateMounts(t.record().canonicalPlan(), env.requireCurrent(t.record()));
            env.faults.at(Step.REPLACE_START_NEW);
            env.docker.startContainer(attempt.newId.get());
        }

        if (prior.containerId().isPresent()) {
            env.faults.at(Step.REPLACE_REMOVE_OLD);
            if (prior.wasRunning()) {
                t.mark(Optional.of(Step.REPLACE_REMOVE_OLD));
            }
            env.removeIfPresent(prior.containerId().get());
        }

        env.faults.at(Step.REPLACE_COMMIT);
        InstanceRecord r = t.record();
        Event done = prior.wasRunning() ? Event.REPLACED_RUNNING : Event.REPLACED_CREATED;
        t.write(new InstanceRecord(r.instanceId(), r.containerId(), r.containerName(), r.templateId(),
                r.templateVersion(), r.planDigest(), r.canonicalPlan(), Fsm.to(r.state(), done), r.revision() + 1,
                Optional.empty(), Optional.empty()));
        LOG.log(System.Logger.Level.INFO, "lifecycle: {0} replaced, revision {1}", r.instanceId(), r.revision() + 1);
    }

    /**
     * Rolls back a replace that did not commit, from wherever it stopped. Never throws for a step
     * failure: a rollback that cannot finish gives up ({@link #giveUp}).
     *
     * @param t       a {@code REPLACING} or {@code ROLLING_BACK} record
     * @param attempt what the failed request knows beyond the record; empty after a crash
     * @return true if the prior instance was restored, false if it was left for an operator
     */
    boolean rollback(Tracked t, Attempt attempt) {
        Optional<String> newId = attempt.newId;
        try {
            // A write whose outcome is unknown may have gone through: read what is there now.
            if (!t.reload()) {
                throw new Abort(ProblemCode.INTERNAL_ERROR);
            }
            InstanceRecord r = t.record();
            if (r.prior().isEmpty()) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            newId = r.containerId().or(() -> attempt.newId);
            boolean mayBeUnrecorded = attempt.createOutcomeUnknown || searches(r);
            if (newId.isEmpty() && mayBeUnrecorded) {
                // A crash (or a lost answer) between creating the new container and recording it.
                newId = env.unrecorded(r.instanceId(), r.planDigest(), r.prior().get().containerId().stream().toList())
                        .stream().findFirst();
            }
            if (r.state() == InstanceState.REPLACING) {
                env.faults.at(Step.ROLLBACK_PERSIST);
                t.write(r.withState(Fsm.to(r.state(), Event.REPLACE_FAILED)).withContainerId(newId)
                        .withStep(Optional.of(Step.after(Phase.REPLACING, Step.ROLLBACK_PERSIST).marker())));
            } else if (!newId.equals(r.containerId())) {
                t.write(r.withContainerId(newId));
            }
            restore(t);
            return true;
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log("rollback of " + t.id(), e);
            giveUp(t, newId);
            return false;
        }
    }

    private void restore(Tracked t) throws Abort, DockerException, RegistryException {
        InstanceRecord r = t.record();
        InstanceRecord.Prior p = r.prior().orElseThrow(() -> new Abort(ProblemCode.INTERVENTION_REQUIRED));
        String name = r.containerName();

        // 0. decide whether the prior instance can come back at all, before anything is removed
        Env.Identity old = env.identify(p.containerId(), Env.Expect.prior(r, p));
        if (old instanceof Env.Mismatch) {
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
        Optional<ApprovedPlan> again = Optional.empty();
        if (old instanceof Env.Missing) {
            again = Optional.of(reapprove(r, p));
        } else if (old instanceof Env.Match m && !m.info().name().equals(name) && nameHeldByOther(name, r)) {
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }

        // 1. the new container goes (only the one the record names, and only if it is still ours)
        if (r.containerId().isPresent()) {
            switch (env.identify(r.containerId(), Env.Expect.current(r))) {
                case Env.Match m -> {
                    env.faults.at(Step.ROLLBACK_REMOVE_NEW);
                    env.removeIfPresent(m.info().id());
                }
                case Env.Missing m -> {
                }
                case Env.Mismatch m -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            t.write(t.record().withContainerId(Optional.empty())
                    .withStep(Optional.of(Step.ROLLBACK_RENAME_OLD.marker())));
        }

        // 2. the old container is back under its name, or made again from the prior plan
        String oldId;
        if (old instanceof Env.Match m) {
            if (!m.info().name().equals(name)) {
                env.faults.at(Step.ROLLBACK_RENAME_OLD);
                t.mark(Optional.of(Step.ROLLBACK_RENAME_OLD));
                // A container we do not know taking the name meanwhile makes this fail: never touched.
                env.docker.renameContainer(m.info().id(), name);
            }
            oldId = m.info().id();
        } else {
            oldId = recreate(t, again.orElseThrow());
        }

        // 3. its run state
        Event restored = Event.ROLLED_BACK_STOPPED;
        if (p.wasRunning()) {
            InstanceRecord now = t.record();
            InstanceRecord.Prior np = now.prior().orElseThrow();
            Env.Expect back = new Env.Expect(now.instanceId(), np.templateId(), np.templateVersion(),
                    np.planDigest(), Set.of(name));
            if (!(env.identify(Optional.of(oldId), back) instanceof Env.Match m)) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            env.revalidateMounts(np.canonicalPlan(), m.info());
            env.faults.at(Step.ROLLBACK_START_OLD);
            t.mark(Optional.of(Step.ROLLBACK_START_OLD));
            env.docker.startContainer(oldId);
            restored = Event.ROLLED_BACK_RUNNING;
        }

        // 4. the prior plan is current again, at the same revision
        env.faults.at(Step.ROLLBACK_COMMIT);
        InstanceRecord now = t.record();
        t.write(new InstanceRecord(now.instanceId(), Optional.of(oldId), name, p.templateId(), p.templateVersion(),
                p.planDigest(), p.canonicalPlan(), Fsm.to(now.state(), restored), now.revision(), Optional.empty(),
                Optional.empty()));
        LOG.log(System.Logger.Level.INFO, "lifecycle: replace of {0} rolled back to revision {1}", now.instanceId(),
                now.revision());
    }

    /** True if something other than the new container holds the name the old one must get back. */
    private boolean nameHeldByOther(String name, InstanceRecord r) throws DockerException {
        try {
            Optional<ContainerInfo> holder = env.docker.inspectContainer(name);
            return holder.isPresent() && !r.containerId().equals(Optional.of(holder.get().id()));
        } catch (DockerProtocolException e) {
            return true;
        }
    }

    /**
     * The old container is gone: the prior plan must pass validation and image approval again (the
     * new container's ports do not count, it is about to go). A refusal means the prior instance
     * cannot come back: not safe.
     */
    private ApprovedPlan reapprove(InstanceRecord r, InstanceRecord.Prior p)
            throws Abort, DockerException, RegistryException {
        ApprovedPlan again;
        try {
            again = env.approve(Env.parseRegistered(p.canonicalPlan()), r.containerId().stream().toList(), "");
        } catch (Abort refused) {
            Problems.log("re-approval of the prior plan of " + r.instanceId(), refused);
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
        if (!again.planDigest().equals(p.planDigest())) {
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
        return again;
    }

    /** Creates the old container again from its re-approved plan. */
    private String recreate(Tracked t, ApprovedPlan again) throws Abort, DockerException, RegistryException {
        InstanceRecord r = t.record();
        InstanceRecord.Prior p = r.prior().orElseThrow();
        if (searches(r)) {
            // An earlier recreate of this rollback may have made a container it never recorded.
            for (String c : env.unrecorded(r.instanceId(), p.planDigest(), List.of())) {
                env.removeIfPresent(c);
            }
        }
        env.faults.at(Step.ROLLBACK_RECREATE_OLD);
        t.mark(Optional.of(Step.ROLLBACK_RECREATE_OLD));
        String id = env.docker.createContainer(again.spec());

        env.faults.at(Step.ROLLBACK_RECORD_OLD);
        t.write(t.record().withPrior(Optional.of(new InstanceRecord.Prior(p.canonicalPlan(), p.planDigest(),
                p.templateId(), p.templateVersion(), Optional.of(id), p.containerName(), p.wasRunning())))
                .withStep(Optional.of(Step.ROLLBACK_START_OLD.marker())));
        return id;
    }

    /**
     * The rollback cannot finish: every container of the instance is stopped (never removed: the
     * operator decides), except one a recreate never recorded, which is incomplete and removed; then
     * {@code INTERVENTION_REQUIRED}. If even that fails the record keeps its state and the next
     * start-up reconciliation rolls back again.
     */
    private void giveUp(Tracked t, Optional<String> newId) {
        try {
            if (!t.reload()) {
                return;
            }
            InstanceRecord r = t.record();
            Optional<String> main = r.containerId().or(() -> newId);
            env.faults.at(Step.ROLLBACK_STOP_ALL);
            List<String> stop = new ArrayList<>();
            if (env.identify(main, Env.Expect.current(r)) instanceof Env.Match m && m.info().state().running()) {
                stop.add(m.info().id());
            }
            if (r.prior().isPresent()) {
                InstanceRecord.Prior p = r.prior().get();
                if (env.identify(p.containerId(), Env.Expect.prior(r, p)) instanceof Env.Match m
                        && m.info().state().running()) {
                    stop.add(m.info().id());
                }
                if (searches(r)) {
                    List<String> known = new ArrayList<>(main.stream().toList());
                    p.containerId().ifPresent(known::add);
                    for (String c : env.unrecorded(r.instanceId(), p.planDigest(), known)) {
                        env.removeIfPresent(c);
                    }
                }
            }
            for (String c : stop) {
                env.docker.stopContainer(c, Lifecycle.REPLACE_STOP_TIMEOUT_SECONDS);
            }
            env.faults.at(Step.ROLLBACK_GIVE_UP);
            InstanceState failing = r.state() == InstanceState.REPLACING ? Fsm.to(r.state(), Event.REPLACE_FAILED)
                    : r.state();
            t.write(r.withState(Fsm.to(failing, Event.ROLLBACK_FAILED)).withContainerId(main)
                    .withStep(Optional.of(Step.ROLLBACK_GIVE_UP.marker())));
            LOG.log(System.Logger.Level.WARNING,
                    "lifecycle: replace of {0} could not be rolled back; left stopped, intervention required",
                    r.instanceId());
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log("giving up the rollback of " + t.id() + " (left for the next start-up)", e);
        }
    }
}
