package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerConflictException;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.Created;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.PlanDigest;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.RegistryException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * CreateInstance (SPEC 10): validate fully; then the create steps of {@link Step}, run by
 * {@link StepMachine}: persist the {@code CREATING} intent; create the container under its
 * deterministic name; record its ID and {@code CREATED}. A create that does not reach its commit is
 * undone: the container it made is removed (never host data) and the intent dropped, in the
 * request or, after a crash, by the start-up reconciliation.
 */
final class Creates {
    private static final System.Logger LOG = System.getLogger(Creates.class.getName());

    private final Registry registry;
    private final DockerEngine docker;
    private final Approvals approvals;
    private final Identities ids;
    private final Faults faults;

    Creates(Registry registry, DockerEngine docker, Approvals approvals, Identities ids, Faults faults) {
        this.registry = registry;
        this.docker = docker;
        this.approvals = approvals;
        this.ids = ids;
        this.faults = faults;
    }

    /**
     * Runs under the instance's exclusive guard.
     *
     * @param plan a parsed plan with a syntactically valid instance ID
     * @return the instance; {@code existed} for an idempotent repeat
     */
    Created create(Plan plan) throws Abort, DockerException, RegistryException {
        String id = plan.instanceId();
        switch (registry.get(id)) {
            case Lookup.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            case Lookup.Found f when f.record().state() == InstanceState.CREATING -> {
                // Under the guard nobody else is creating: an intent left by an earlier failure.
                Tracked left = Tracked.of(registry, f);
                if (!(recover(left) instanceof Step.End)) {
                    throw new Abort(ProblemCode.INSTANCE_BUSY);
                }
            }
            case Lookup.Found f -> {
                String digest = PlanDigest.of(plan);
                if (plan.planDigest().isPresent() && !plan.planDigest().get().equals(digest)) {
                    throw Abort.rejected("planDigest", Rules.DIGEST_MISMATCH);
                }
                if (!f.record().planDigest().equals(digest)) {
                    throw new Abort(ProblemCode.INSTANCE_EXISTS);
                }
                // The repeat of a create that happened: not of one whose instance is being deleted, or was left by
                // a replace or in INTERVENTION_REQUIRED, which a 200 would report as created (SPEC 10: CREATE is
                // allowed from no record only).
                if (!Phase.of(f.record().state()).settled()) {
                    throw new Abort(ProblemCode.INVALID_TRANSITION);
                }
                return new Created(ids.view(f.record()), true);
            }
            case Lookup.Absent a -> {
            }
        }
        InstanceState creating = Transitions.request(Optional.empty(), Event.CREATE).persisted().orElseThrow();

        // Everything is checked before anything is written or created.
        Approvals.Approved approval = approvals.approveCreate(plan);
        ApprovedPlan approved = approval.plan();

        Tracked t = Tracked.intent(registry, Records.record(approved, creating, 0, Optional.empty(),
                Optional.empty(), Optional.empty()));
        StepMachine.Run run = new StepMachine.Run("create " + id, t, new Steps(approval), faults);
        Step.Decision end = StepMachine.run(new Step.Go(Step.CREATE_PERSIST_INTENT, false), run);
        if (end instanceof Step.End e && e.ifStopped() == Event.CREATE_SUCCEEDED) {
            return new Created(Identities.created(t.record()), false);
        }
        // Undone (or, if the undo failed, left CREATING for the start-up reconciliation or the next create).
        Exception failure = run.failure().orElseThrow();
        throw failure instanceof Abort a ? a : new Abort(Problems.code(failure));
    }

    /**
     * Undoes a create a crash (or a failed undo) left: from {@link Step#recover}.
     *
     * @param t the {@code CREATING} record
     * @return how the run ended
     */
    Step.Decision recover(Tracked t) {
        Step.Go start = (Step.Go) Step.recover(Phase.of(t.state()), Step.ofMarker(t.record().step()));
        return StepMachine.run(start, new StepMachine.Run("undo of create " + t.id(), t, new Steps(null), faults));
    }

    /**
     * The create steps. During the run the record's main fields hold the plan; {@code made} the ID
     * the engine returned for this create, once it did.
     */
    private final class Steps implements StepMachine.Actions {
        /** The approval; null for a recovery, which never creates. */
        private final Approvals.Approved approved;
        private Optional<String> made = Optional.empty();

        Steps(Approvals.Approved approved) {
            this.approved = approved;
        }

        @Override
        public boolean holds(Step step, StepMachine.Run run) {
            return switch (step.guard()) {
                case ALWAYS -> true;
                case CONTAINER_KNOWN -> made.isPresent() || run.tracked().record().containerId().isPresent()
                        || run.search();
                default -> throw new IllegalStateException("lifecycle: " + step.guard() + " in a create");
            };
        }

        @Override
        public void act(Step step, StepMachine.Run run) throws Abort, DockerException, RegistryException {
            switch (step) {
                case CREATE_PERSIST_INTENT ->
                        approvals.register(approved, () -> run.fire(r -> r, Event.CREATE));
                case CREATE_CONTAINER -> made = Optional.of(createContainer(run.tracked().record()));
                case CREATE_COMMIT -> run.fire(r -> r.withContainerId(made), run.ending().ifStopped());
                case CREATE_UNDO_REMOVE -> undoRemove(run);
                case CREATE_UNDO_DROP -> {
                    run.fire(r -> r, run.ending().ifStopped());
                    LOG.log(System.Logger.Level.INFO, "lifecycle: create of {0} undone", run.tracked().id());
                }
                default -> throw new IllegalStateException("lifecycle: " + step + " in a create");
            }
        }

        /**
         * Creates the container under the instance's name. When the name is taken, the holder is cleared only if
         * it is what an earlier create of this same plan left without a record: named and labelled for this
         * instance and digest, and never started. An engine that finishes a create after the agent gave up on its
         * answer (and after the search for it found nothing) leaves exactly that, and without this the instance
         * could not be created again until an operator removed it. Any other holder (another plan, a container that
         * ran, or one that is not ours) is never touched: {@code instance_exists}. A crash in between is the
         * create step's own crash window: the record still says this plan is being created.
         */
        private String createContainer(InstanceRecord r) throws Abort, DockerException {
            ContainerSpec spec = approved.plan().spec();
            try {
                return docker.createContainer(spec, approved.networks().resolve(docker, spec.networks()));
            } catch (DockerConflictException e) {
                List<String> left = ids.unrecordedNeverStarted(r.instanceId(), r.planDigest(), List.of());
                if (left.isEmpty()) {
                    throw new Abort(ProblemCode.INSTANCE_EXISTS);
                }
                for (String c : left) {
                    ids.removeIfPresent(c);
                }
                LOG.log(System.Logger.Level.WARNING, "lifecycle: {0}: removed {1} container(s) an earlier create of "
                        + "the same plan left without a record, never started", r.instanceId(), left.size());
            }
            try {
                return docker.createContainer(spec, approved.networks().resolve(docker, spec.networks()));
            } catch (DockerConflictException e) {
                throw new Abort(ProblemCode.INSTANCE_EXISTS);
            }
        }

        /**
         * Removes the container this create made: the ID the engine returned, the one the record
         * names if it is ours, and, where the answer may have been lost, those the crash-window rule
         * finds by name, instance ID and this plan's digest.
         *
         * <p>Only a container that never ran. A create never starts its container, so one that ran was not left by
         * this create's window: the record is older than the engine (a registry put back from a backup taken during a
         * create, or an older head written over the current one), and the container is very likely the one a
         * committed create answered 201 for, since started. Removing it destroyed a live workload on the word of a
         * stale record; it is left for an operator now (the next start reports it as a container no record names).
         */
        private void undoRemove(StepMachine.Run run) throws DockerException {
            InstanceRecord r = run.tracked().record();
            Set<String> remove = new LinkedHashSet<>();
            Set<String> ran = new LinkedHashSet<>();
            made.ifPresent(remove::add); // made by this very process a moment ago, and never started
            if (r.containerId().isPresent()
                    && ids.identify(r.containerId(), Identities.Expect.current(r)) instanceof Identities.Match m) {
                (Identities.STATUS_CREATED.equals(m.info().state().status()) ? remove : ran).add(m.info().id());
            }
            if (run.search()) {
                for (ContainerSummary c : ids.unrecordedSummaries(r.instanceId(), r.planDigest())) {
                    (Identities.STATUS_CREATED.equals(c.state()) ? remove : ran).add(c.id());
                }
            }
            ran.removeAll(remove);
            for (String c : remove) {
                ids.removeIfPresent(c);
            }
            if (!ran.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "lifecycle: {0}: the record says a create of its plan was under "
                        + "way, but {1} container(s) of that plan have run, which no create leaves: the record is older "
                        + "than the engine (a registry put back from a copy?); left in place for an operator",
                        r.instanceId(), ran.size());
            }
        }
    }
}
