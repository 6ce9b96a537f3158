package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ReplaceInstance and its rollback (SPEC 10): the replace and rollback steps of {@link Step}, run
 * by {@link StepMachine}. A replace that does not reach its commit is rolled back, in the request or,
 * after a crash, by the start-up reconciliation; each rollback step looks at the engine first, so
 * running it again after a crash at any point is safe. A rollback that is
 * not safe or fails leaves every container of the instance stopped in
 * {@code INTERVENTION_REQUIRED}.
 *
 * <p>During a replace the record's main fields hold the NEW plan (and, once known, the new
 * container's ID); {@link InstanceRecord.Prior} holds the old plan and container.
 */
final class Replaces {
    private static final System.Logger LOG = System.getLogger(Replaces.class.getName());

    private final DockerEngine docker;
    private final Approvals approvals;
    private final Identities ids;
    private final Mounts mounts;
    private final Faults faults;
    /**
     * Instances whose record a run left unfinished ({@code REPLACING} or {@code ROLLING_BACK}) while the replace's
     * stop of the old container was asked for and not answered: the engine may still be stopping it. The record's
     * marker says so only after a crash inside the stop step; within this process, this does, for the recovery the
     * next request runs. Bounded by the registered instances.
     */
    private final Set<String> stopsLeftUnfinished = ConcurrentHashMap.newKeySet();

    Replaces(DockerEngine docker, Approvals approvals, Identities ids, Mounts mounts, Faults faults) {
        this.docker = docker;
        this.approvals = approvals;
        this.ids = ids;
        this.mounts = mounts;
        this.faults = faults;
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
        InstanceState replacing = Transitions.request(Optional.of(old.state()), Event.REPLACE).persisted()
                .orElseThrow();
        if (expectedRevision != old.revision()) {
            throw new Abort(ProblemCode.REVISION_CONFLICT);
        }
        Optional<ContainerInfo> current = switch (ids.identify(old.containerId(), Identities.Expect.current(old))) {
            case Identities.Match m -> Optional.of(m.info());
            case Identities.Mismatch m -> throw new Abort(ProblemCode.IDENTITY_MISMATCH);
            case Identities.Missing m -> {
                // Gone: the replace may recreate it, unless a container we do not know holds the name.
                if (nameTaken(old.containerName())) {
                    throw new Abort(ProblemCode.IDENTITY_MISMATCH);
                }
                yield Optional.empty();
            }
        };
        String priorName = new InstanceId(old.instanceId()).priorContainerName(old.revision());
        if (current.isPresent() && nameTaken(priorName)) {
            // SPEC 5 names the prior container dogama-X-r<rev>, which is also the container of an instance
            // X-r<rev>: refused before anything is stopped, not after (the rename to a taken name fails, and the
            // instance would have been stopped and started again for nothing).
            throw new Abort(ProblemCode.IDENTITY_MISMATCH);
        }
        Approvals.Approved approval =
                approvals.approve(plan, current.stream().map(ContainerInfo::id).toList(), "plan.");
        ApprovedPlan next = approval.plan();

        InstanceRecord.Prior prior = new InstanceRecord.Prior(old.canonicalPlan(), old.planDigest(),
                old.templateId(), old.templateVersion(), current.map(ContainerInfo::id), priorName,
                current.map(c -> c.state().running()).orElse(false));
        InstanceRecord intent = Records.record(next, replacing, old.revision(), Optional.empty(), Optional.of(prior),
                Optional.empty());

        Steps steps = new Steps(approval, intent, false, false, false);
        StepMachine.Run run = new StepMachine.Run("replace " + old.instanceId(), t, steps, faults);
        Step.Decision end = StepMachine.run(new Step.Go(Step.REPLACE_PERSIST_INTENT, false), run);
        remember(t, end, steps);
        if (end instanceof Step.End e && (e.ifStopped() == Event.REPLACED_CREATED)) {
            return ids.view(t.record());
        }
        if (end instanceof Step.End e && e.ifStopped() == Event.ROLLED_BACK_STOPPED
                || end instanceof Step.Keep && t.state() == old.state()) {
            // rolled back (or never begun): the replace's own failure is the answer
            Exception failure = run.failure().orElseThrow();
            throw failure instanceof Abort a ? a : new Abort(Problems.code(failure));
        }
        throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
    }

    /**
     * Rolls back a replace a crash (or a failed rollback) left, from {@link Step#recover}.
     *
     * @param t a {@code REPLACING} or {@code ROLLING_BACK} record
     * @return how the run ended
     */
    Step.Decision recover(Tracked t) {
        return recovery(t).end();
    }

    /**
     * How a recovery ended.
     *
     * @param end     the run's end
     * @param failure what stopped it (the run's last failure), when it did not end
     */
    record Recovery(Step.Decision end, Optional<Exception> failure) {
    }

    /**
     * As {@link #recover}, with what stopped the run.
     *
     * @param t a {@code REPLACING} or {@code ROLLING_BACK} record
     * @return how the run ended
     */
    Recovery recovery(Tracked t) {
        Step.Go start = (Step.Go) Step.recover(Phase.of(t.state()), Step.ofMarker(t.record().step()));
        // A crash inside the stop step (its marker is written before the engine is called) may have left the engine
        // stopping the old container.
        boolean stopUnfinished = Step.ofMarker(t.record().step()).equals(Optional.of(Step.REPLACE_STOP_OLD))
                || stopsLeftUnfinished.contains(t.id());
        Steps steps = new Steps(null, null, searches(t.record()), t.state() == InstanceState.REPLACING, stopUnfinished);
        StepMachine.Run run = new StepMachine.Run("recovery of " + t.id(), t, steps, faults);
        Step.Decision end = StepMachine.run(start, run);
        remember(t, end, steps);
        return new Recovery(end, run.lastFailure());
    }

    /** Keeps, for a run that left the record unfinished, whether its stop of the old container was left unanswered. */
    private void remember(Tracked t, Step.Decision end, Steps steps) {
        boolean unfinished = !(end instanceof Step.End)
                && (t.state() == InstanceState.REPLACING || t.state() == InstanceState.ROLLING_BACK);
        if (unfinished && steps.stopUnfinished) {
            stopsLeftUnfinished.add(t.id());
        } else {
            stopsLeftUnfinished.remove(t.id());
        }
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
            return docker.inspectContainer(name).isPresent();
        } catch (DockerProtocolException e) {
            // Something holds the name that we cannot even describe: not ours.
            return true;
        }
    }

    /**
     * The replace and rollback steps. During a replace the record's main fields hold the NEW plan
     * (and, once known, the new container's ID); {@link InstanceRecord.Prior} holds the old plan and
     * container.
     */
    private final class Steps implements StepMachine.Actions {
        /** The new plan's approval; null for a recovery, which only rolls back. */
        private final Approvals.Approved approval;
        /** The record the replace persists first; null for a recovery. */
        private final InstanceRecord intent;
        /** The persisted marker a recovery began from declared a create's crash window. */
        private final boolean searchedAtStart;
        /**
         * A recovery that began from {@code REPLACING}: the replace's own removal of the prior container (step 7) is
         * what {@link Step#REPLACE_RESUME} finishes, so a prior container gone here was removed outside the protocol,
         * or the registry is an older copy. Such a rollback never makes it again (see {@link #rollbackPersist}).
         */
        private final boolean fromReplacing;
        /**
         * The replace's stop of the old container was asked for and not answered (the call failed, or a crash ended
         * it): the engine may still be stopping it, and kills it when the stop's timeout ends.
         */
        private boolean stopUnfinished;
        /** The new container's ID once the engine returned it (its record write may have failed). */
        private Optional<String> made = Optional.empty();
        /**
         * The old container made again by the rollback, kept apart from {@link #made}: it belongs in the prior's
         * slot, and folded into the new container's slot it fails the identity check there, so that even a
         * delete of the instance refuses it (identity_mismatch) for good.
         */
        private Optional<String> recreated = Optional.empty();
        /** The rollback's verdict on the prior container: whether it can come back, and how. */
        private Identities.Identity old;
        /** The prior plan approved again, when the old container is gone and must be recreated. */
        private Optional<ApprovedPlan> again = Optional.empty();

        Steps(Approvals.Approved approval, InstanceRecord intent, boolean searchedAtStart, boolean fromReplacing,
                boolean stopUnfinished) {
            this.approval = approval;
            this.intent = intent;
            this.searchedAtStart = searchedAtStart;
            this.fromReplacing = fromReplacing;
            this.stopUnfinished = stopUnfinished;
        }

        private InstanceRecord.Prior prior(StepMachine.Run run) throws Abort {
            return run.tracked().record().prior().orElseThrow(() -> new Abort(ProblemCode.INTERVENTION_REQUIRED));
        }

        @Override
        public boolean holds(Step step, StepMachine.Run run) throws Abort, DockerException, RegistryException {
            if (step == Step.ROLLBACK_REMOVE_NEW) {
                decideRestore(run);
            }
            InstanceRecord r = run.tracked().record();
            return switch (step.guard()) {
                case ALWAYS -> true;
                case OLD_RECORDED -> r.prior().flatMap(InstanceRecord.Prior::containerId).isPresent();
                case WAS_RUNNING -> prior(run).wasRunning();
                case CURRENT_RECORDED -> r.containerId().isPresent();
                case OLD_PRESENT -> old instanceof Identities.Match;
                case OLD_GONE -> old instanceof Identities.Missing;
                case CONTAINER_KNOWN -> throw new IllegalStateException("lifecycle: " + step.guard() + " in a replace");
            };
        }

        @Override
        public void act(Step step, StepMachine.Run run) throws Abort, DockerException, RegistryException {
            switch (step) {
                case REPLACE_PERSIST_INTENT ->
                        approvals.register(approval, () -> run.fire(r -> intent, Event.REPLACE));
                case REPLACE_STOP_OLD -> {
                    stopUnfinished = true;
                    docker.stopContainer(prior(run).containerId().orElseThrow(), Lifecycle.REPLACE_STOP_TIMEOUT_SECONDS);
                    stopUnfinished = false;
                }
                case REPLACE_RENAME_OLD -> docker.renameContainer(prior(run).containerId().orElseThrow(),
                        prior(run).containerName());
                case REPLACE_CREATE_NEW -> made = Optional.of(docker.createContainer(approval.plan().spec()));
                case REPLACE_RECORD_NEW -> run.write(r -> r.withContainerId(made));
                case REPLACE_START_NEW -> {
                    // by the recorded ID (a resumed replace has no other), after its identity and mounts are checked;
                    // one already running is left as it is (the engine's 304), so the commit's RUNNING is true
                    ContainerInfo fresh = ids.requireCurrent(run.tracked().record());
                    mounts.revalidateMounts(run.tracked().record().canonicalPlan(), fresh);
                    docker.startContainer(fresh.id());
                }
                case REPLACE_REMOVE_OLD -> ids.removeIfPresent(prior(run).containerId().orElseThrow());
                case REPLACE_COMMIT -> {
                    boolean running = prior(run).wasRunning();
                    run.fire(r -> r.withPrior(Optional.empty()).withRevision(r.revision() + 1),
                            run.ending().event(running));
                    LOG.log(System.Logger.Level.INFO, "lifecycle: {0} replaced, revision {1}", run.tracked().id(),
                            run.tracked().record().revision());
                }
                case REPLACE_RESUME -> resume(run);
                case ROLLBACK_PERSIST -> rollbackPersist(run);
                case ROLLBACK_REMOVE_NEW -> removeNew(run);
                case ROLLBACK_RENAME_OLD -> {
                    Identities.Match m = (Identities.Match) old;
                    if (!m.info().name().equals(run.tracked().record().containerName())) {
                        // A container we do not know taking the name meanwhile makes this fail: never touched.
                        docker.renameContainer(m.info().id(), run.tracked().record().containerName());
                    }
                }
                case ROLLBACK_RECREATE_OLD -> recreate(run);
                case ROLLBACK_RECORD_OLD -> {
                    InstanceRecord.Prior p = prior(run);
                    run.write(r -> r.withPrior(Optional.of(new InstanceRecord.Prior(p.canonicalPlan(),
                            p.planDigest(), p.templateId(), p.templateVersion(), recreated, p.containerName(),
                            p.wasRunning()))));
                }
                case ROLLBACK_START_OLD -> startOld(run);
                case ROLLBACK_COMMIT -> {
                    InstanceRecord.Prior p = prior(run);
                    Optional<String> oldId = old instanceof Identities.Match m ? Optional.of(m.info().id())
                            : p.containerId();
                    run.fire(r -> r.withPlanOf(p).withContainerId(oldId), run.ending().event(p.wasRunning()));
                    LOG.log(System.Logger.Level.INFO, "lifecycle: replace of {0} rolled back to revision {1}",
                            run.tracked().id(), run.tracked().record().revision());
                }
                case ROLLBACK_STOP_ALL -> stopAll(run);
                case ROLLBACK_GIVE_UP -> {
                    Optional<String> main = run.tracked().record().containerId().or(() -> made);
                    if (run.tracked().state() == InstanceState.REPLACING) {
                        run.fire(r -> r.withContainerId(main), Event.REPLACE_FAILED, run.ending().ifStopped());
                    } else {
                        run.fire(r -> r.withContainerId(main), run.ending().ifStopped());
                    }
                    LOG.log(System.Logger.Level.WARNING,
                            "lifecycle: replace of {0} could not be rolled back; left stopped, intervention required",
                            run.tracked().id());
                }
                default -> throw new IllegalStateException("lifecycle: " + step + " in a replace");
            }
        }

        /**
         * A start-up's look at a replace whose new container was recorded: finished (done) when the prior container
         * is gone and the recorded new one is ours, of the new plan; otherwise refused, and rolled back. A prior
         * container that is still there is the crash of a replace this agent ran; one that is gone can no longer be
         * put back, only made again from its plan, and an older registry copy restored after the commit looks just
         * like this.
         */
        private void resume(StepMachine.Run run) throws Abort, DockerException {
            InstanceRecord r = run.tracked().record();
            InstanceRecord.Prior p = prior(run);
            if (!(ids.identify(p.containerId(), Identities.Expect.prior(r, p)) instanceof Identities.Missing)) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED); // still there: rolled back
            }
            ids.requireCurrent(r); // the new container, by its recorded ID, ours and of the new plan
            LOG.log(System.Logger.Level.INFO, "lifecycle: {0}: the prior container is gone; the replace is finished",
                    r.instanceId());
        }

        /**
         * {@code ROLLING_BACK}, folding in the new container's ID: the one the request knew, or the
         * one the crash-window rule finds when the create's answer may have been lost.
         *
         * <p>Except in a recovery from {@code REPLACING} whose recorded prior container is gone: it was removed where
         * no step of this replace removes it (step 7 is finished instead, {@link Step#REPLACE_RESUME}), or the resumed
         * replace failed after it, or the registry is an older copy. Made again, it would stand beside, or in place
         * of, whatever removed it. So the rollback is not safe: the fold is written with the record still
         * {@code REPLACING}, so that every later start decides the same, and the step is refused (every container the
         * record names is stopped, none removed, {@code INTERVENTION_REQUIRED}).
         */
        private void rollbackPersist(StepMachine.Run run) throws Abort, DockerException, RegistryException {
            if (!run.tracked().reload()) {
                throw new Abort(ProblemCode.INTERNAL_ERROR);
            }
            InstanceRecord r = run.tracked().record();
            InstanceRecord.Prior p = prior(run);
            Optional<String> newId = r.containerId().or(() -> made);
            if (newId.isEmpty() && (run.search() || searchedAtStart)) {
                // Never one that ran: the replace's create never starts what it has not recorded, so a started one
                // is not this window's (an older registry copy put back after the replace went on).
                newId = ids.unrecordedNeverStarted(r.instanceId(), r.planDigest(), p.containerId().stream().toList())
                        .stream().findFirst();
            }
            made = newId;
            Optional<String> fold = newId;
            if (fromReplacing && p.containerId().isPresent()
                    && ids.identify(p.containerId(), Identities.Expect.prior(r, p)) instanceof Identities.Missing) {
                if (r.containerId().isEmpty() && fold.isPresent()) {
                    run.write(x -> x.withContainerId(fold));
                }
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            run.fire(x -> x.withContainerId(fold), Event.REPLACE_FAILED);
        }

        /**
         * Before anything is removed: can the prior instance come back at all? A recovery that starts
         * here first folds in a new container the crash window hid. A refusal is "not safe"
         * ({@link Step#decide}): nothing is removed, every container is stopped.
         */
        private void decideRestore(StepMachine.Run run) throws Abort, DockerException, RegistryException {
            InstanceRecord r = run.tracked().record();
            InstanceRecord.Prior p = prior(run);
            if (r.containerId().isEmpty() && (run.search() || searchedAtStart)) {
                Optional<String> hidden = ids.unrecordedNeverStarted(r.instanceId(), r.planDigest(),
                        p.containerId().stream().toList()).stream().findFirst();
                if (hidden.isPresent()) {
                    made = hidden;
                    run.write(x -> x.withContainerId(hidden));
                    r = run.tracked().record();
                }
            }
            old = ids.identify(p.containerId(), Identities.Expect.prior(r, p));
            if (old instanceof Identities.Mismatch) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            if (old instanceof Identities.Missing) {
                again = Optional.of(reapprove(r, p));
            } else if (old instanceof Identities.Match m && !m.info().name().equals(r.containerName())
                    && nameHeldByOther(r.containerName(), r)) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
        }

        /** The new container goes (only the one the record names, and only if it is still ours). */
        private void removeNew(StepMachine.Run run) throws Abort, DockerException, RegistryException {
            InstanceRecord r = run.tracked().record();
            switch (ids.identify(r.containerId(), Identities.Expect.current(r))) {
                case Identities.Match m -> ids.removeIfPresent(m.info().id());
                case Identities.Missing m -> {
                }
                case Identities.Mismatch m -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            made = Optional.empty();
            run.write(x -> x.withContainerId(Optional.empty()));
        }

        /** The old container is gone: it is made again from its re-approved plan. */
        private void recreate(StepMachine.Run run) throws Abort, DockerException {
            InstanceRecord r = run.tracked().record();
            InstanceRecord.Prior p = prior(run);
            if (searchedAtStart) {
                // An earlier recreate of this rollback may have made a container it never recorded.
                for (String c : ids.unrecordedNeverStarted(r.instanceId(), p.planDigest(), List.of())) {
                    ids.removeIfPresent(c);
                }
            }
            recreated = Optional.of(docker.createContainer(again.orElseThrow().spec()));
        }

        /** The old container runs again if it ran before, after its identity and mounts are checked. */
        private void startOld(StepMachine.Run run) throws Abort, DockerException, RegistryException {
            InstanceRecord now = run.tracked().record();
            InstanceRecord.Prior np = prior(run);
            Optional<String> oldId = old instanceof Identities.Match m ? Optional.of(m.info().id()) : np.containerId();
            Identities.Expect back = new Identities.Expect(now.instanceId(), np.templateId(), np.templateVersion(),
                    np.planDigest(), Set.of(now.containerName()));
            if (!(ids.identify(oldId, back) instanceof Identities.Match m)) {
                throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            }
            mounts.revalidateMounts(np.canonicalPlan(), m.info());
            if (stopUnfinished && m.info().state().running()) {
                // The engine goes on with a stop its caller left (a crash, a call that timed out): a start now would
                // be a no-op the stop's kill then undoes, leaving an exited container the record calls running. A
                // stop of its own returns only once the container is down. Only then: a container the rollback
                // itself started (before a crash) is left running.
                docker.stopContainer(m.info().id(), Lifecycle.REPLACE_STOP_TIMEOUT_SECONDS);
            }
            // Down now, by this stop or the engine's: a later recovery must not stop the container this one starts.
            stopUnfinished = false;
            docker.startContainer(m.info().id());
        }

        /**
         * The rollback cannot finish: every container of the instance is stopped (never removed: the
         * operator decides), except one a recreate never recorded, and one the replace's create made but
         * nobody recorded and nobody started, which are incomplete and removed.
         */
        private void stopAll(StepMachine.Run run) throws Abort, DockerException, RegistryException {
            if (!run.tracked().reload()) {
                throw new Abort(ProblemCode.INTERNAL_ERROR);
            }
            InstanceRecord r = run.tracked().record();
            Optional<String> main = r.containerId().or(() -> made);
            List<String> stop = new ArrayList<>();
            if (ids.identify(main, Identities.Expect.current(r)) instanceof Identities.Match m
                    && m.info().state().running()) {
                stop.add(m.info().id());
            }
            if (r.prior().isPresent()) {
                InstanceRecord.Prior p = r.prior().get();
                if (ids.identify(p.containerId(), Identities.Expect.prior(r, p)) instanceof Identities.Match m
                        && m.info().state().running()) {
                    stop.add(m.info().id());
                }
                if (recreated.isPresent() && !recreated.equals(p.containerId())) {
                    ids.removeIfPresent(recreated.get()); // made again but never recorded: incomplete
                }
                if (searches(r) || searchedAtStart) {
                    List<String> known = new ArrayList<>(main.stream().toList());
                    p.containerId().ifPresent(known::add);
                    for (String c : ids.unrecordedNeverStarted(r.instanceId(), p.planDigest(), known)) {
                        ids.removeIfPresent(c);
                    }
                    if (main.isEmpty()) {
                        // The replace's own create window: its answer lost, and the rollback's search for what it
                        // made refused too (LostAnswersTest). Never started, so incomplete: removed, as a create's.
                        for (String c : ids.unrecordedNeverStarted(r.instanceId(), r.planDigest(), known)) {
                            ids.removeIfPresent(c);
                        }
                    }
                }
            }
            for (String c : stop) {
                docker.stopContainer(c, Lifecycle.REPLACE_STOP_TIMEOUT_SECONDS);
            }
            stopUnfinished = false; // every container of the record is down: no stop is left to the engine
        }
    }

    /** True if something other than the new container holds the name the old one must get back. */
    private boolean nameHeldByOther(String name, InstanceRecord r) throws DockerException {
        try {
            Optional<ContainerInfo> holder = docker.inspectContainer(name);
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
        ApprovedPlan a;
        try {
            a = approvals.approve(Approvals.parseRegistered(p.canonicalPlan()), r.containerId().stream().toList(), "")
                    .plan();
        } catch (Abort refused) {
            Problems.log("re-approval of the prior plan of " + r.instanceId(), refused);
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
        if (!a.planDigest().equals(p.planDigest())) {
            throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
        }
        return a;
    }
}
