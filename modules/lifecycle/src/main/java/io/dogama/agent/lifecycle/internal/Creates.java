package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.DockerConflictException;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
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
 * CreateInstance (SPEC 10): validate fully; persist the {@code CREATING} intent; create the
 * container under its deterministic name; record its ID and {@code CREATED}. A create that does not
 * reach its commit is undone: the container it made is removed (never host data) and the intent
 * dropped, in the request or, after a crash, by the start-up reconciliation.
 */
final class Creates {
    private static final System.Logger LOG = System.getLogger(Creates.class.getName());

    private final Env env;

    Creates(Env env) {
        this.env = env;
    }

    /**
     * Runs under the instance's exclusive guard.
     *
     * @param plan a parsed plan with a syntactically valid instance ID
     * @return the instance; {@code existed} for an idempotent repeat
     */
    Created create(Plan plan) throws Abort, DockerException, RegistryException {
        String id = plan.instanceId();
        switch (env.registry.get(id)) {
            case Lookup.Tampered t -> throw new Abort(ProblemCode.INTERVENTION_REQUIRED);
            case Lookup.Found f when f.record().state() == InstanceState.CREATING ->
                // Under the guard nobody else is creating: an intent left by an earlier failure.
                undo(Tracked.of(env.registry, f), Optional.empty(), true);
            case Lookup.Found f -> {
                String digest = PlanDigest.of(plan);
                if (plan.planDigest().isPresent() && !plan.planDigest().get().equals(digest)) {
                    throw Abort.rejected("planDigest", Rules.DIGEST_MISMATCH);
                }
                if (!f.record().planDigest().equals(digest)) {
                    throw new Abort(ProblemCode.INSTANCE_EXISTS);
                }
                return new Created(env.view(f.record()), true);
            }
            case Lookup.Absent a -> {
            }
        }
        InstanceState creating = Fsm.request(Optional.empty(), Event.CREATE).persisted().orElseThrow();

        // Everything is checked before anything is written or created.
        ApprovedPlan approved = env.approve(plan, List.of(), "");

        env.faults.at(Step.CREATE_PERSIST_INTENT);
        Tracked t = Tracked.insert(env.registry, Env.record(approved, creating, 0, Optional.empty(),
                Optional.empty(), Optional.of(Step.after(Phase.ABSENT, Step.CREATE_PERSIST_INTENT))));

        Optional<String> containerId = Optional.empty();
        boolean outcomeUnknown = false;
        try {
            env.faults.at(Step.CREATE_CONTAINER);
            try {
                containerId = Optional.of(env.docker.createContainer(approved.spec()));
            } catch (DockerTimeoutException | DockerUnavailableException | DockerProtocolException e) {
                // The engine may have created it and the answer was lost.
                outcomeUnknown = true;
                throw e;
            } catch (DockerConflictException e) {
                // The name is held by a container we did not make: never touched.
                throw new Abort(ProblemCode.INSTANCE_EXISTS);
            }

            env.faults.at(Step.CREATE_COMMIT);
            t.write(t.record().withContainerId(containerId)
                    .withState(Fsm.to(t.state(), Event.CREATE_SUCCEEDED)).withStep(Optional.empty()));
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log("create " + id, e);
            try {
                undo(t, containerId, outcomeUnknown);
            } catch (Abort | DockerException | RegistryException | RuntimeException cleanup) {
                // The intent stays CREATING; the start-up reconciliation (or the next create) undoes it.
                Problems.log("undo of create " + id, cleanup);
            }
            throw e instanceof Abort a ? a : new Abort(Problems.code(e));
        }
        return new Created(env.view(t.record()), false);
    }

    /**
     * Undoes a create that did not commit: removes the container it made, then drops the intent.
     * Runs in the failed request, on the next create of the same ID, and at start-up.
     *
     * @param t           the {@code CREATING} record
     * @param known       the ID the engine returned for this create, if it did
     * @param mayExistUnrecorded true if a container may exist whose ID was never returned or
     *                    recorded (a lost answer, a crash): it is then looked up by name, instance
     *                    ID and this plan's digest
     */
    void undo(Tracked t, Optional<String> known, boolean mayExistUnrecorded)
            throws Abort, DockerException, RegistryException {
        InstanceRecord r = t.record();
        Set<String> remove = new LinkedHashSet<>();
        known.ifPresent(remove::add);
        if (r.containerId().isPresent()
                && env.identify(r.containerId(), Env.Expect.current(r)) instanceof Env.Match m) {
            remove.add(m.info().id());
        }
        if (mayExistUnrecorded) {
            remove.addAll(env.unrecorded(r.instanceId(), r.planDigest(), List.of()));
        }
        if (!remove.isEmpty()) {
            env.faults.at(Step.CREATE_UNDO_REMOVE);
            for (String c : remove) {
                env.removeIfPresent(c);
            }
        }
        Fsm.toAbsent(t.state(), Event.CREATE_FAILED);
        env.faults.at(Step.CREATE_UNDO_DROP);
        t.remove();
        LOG.log(System.Logger.Level.INFO, "lifecycle: create of {0} undone ({1} container(s) removed)", r.instanceId(),
                remove.size());
    }
}
