package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Ids;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Created;
import io.dogama.agent.lifecycle.DiskUsage;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.PortAvailability;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.lifecycle.Stats;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.ReplaceRequest;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The operations behind {@link AgentOperations}. Mutating operations on one instance are exclusive:
 * a second one while the first runs is answered {@code instance_busy} at once (nothing waits, so a
 * slow engine cannot pile up requests); the registry's compare-and-set is the second guard.
 * Read-only operations take no guard and read one registry snapshot.
 */
final class Operations implements AgentOperations {
    private static final System.Logger LOG = System.getLogger(Operations.class.getName());

    /**
     * Pings at once: one ping at a time would make health latency-bound (each check waits for a whole
     * ping that starts after the one running), a few overlap that wait while the engine still sees a
     * bounded number of pings.
     */
    static final int HEALTH_PINGS = 4;

    /**
     * The registry's last listing and its summaries. The registry answers an unchanged walk with the very
     * list it gave before, so the same list (by identity) has the same summaries.
     */
    private record Listing(List<Lookup> lookups, List<InstanceSummary> summaries) {
    }

    private final DockerEngine docker;
    private final Registry registry;
    private volatile Listing lastListing;
    private final PlanPolicy policy;
    private final Approvals approvals;
    private final Identities ids;
    private final Creates creates;
    private final Runs runs;
    private final Replaces replaces;
    private final Deletes deletes;
    private final SharedCall<Boolean> pings;
    /** Instance IDs with a mutating operation in flight; bounded by the requests running at once. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();

    /** Told what a request's recovery of a record left unfinished did, as the start-up reconciliation is. */
    private final Reconciliations listener;

    Operations(DockerEngine docker, Registry registry, PlanPolicy policy, Faults faults) {
        this(docker, registry, policy, faults, Reconciliations.NONE);
    }

    Operations(DockerEngine docker, Registry registry, PlanPolicy policy, Faults faults, Reconciliations listener) {
        this.listener = listener;
        this.docker = docker;
        this.registry = registry;
        this.policy = policy;
        this.approvals = new Approvals(docker, registry, policy);
        this.ids = new Identities(docker);
        Mounts mounts = new Mounts(policy, approvals);
        this.creates = new Creates(registry, docker, approvals, ids, faults);
        this.runs = new Runs(docker, ids, mounts);
        this.replaces = new Replaces(docker, approvals, ids, mounts, faults);
        this.deletes = new Deletes(ids, faults);
        this.pings = new SharedCall<>("dogama-health-ping-", HEALTH_PINGS, () -> {
            docker.ping();
            return Boolean.TRUE;
        });
    }

    /** @return the start-up reconciliation over this registry, run by these operations, telling their listener */
    Reconciler reconciler() {
        return new Reconciler(registry, ids, creates, replaces, deletes, listener);
    }

    // ---------------------------------------------------------------- guard

    @FunctionalInterface
    private interface Body<T> {
        T run() throws Abort, DockerException, RegistryException;
    }

    private <T> Outcome<T> exclusive(String what, String id, Body<T> body) {
        if (!inFlight.add(id)) {
            return Outcome.failed(ProblemCode.INSTANCE_BUSY);
        }
        try {
            return Outcome.ok(body.run());
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log(what + " " + id, e);
            return Problems.outcome(e);
        } finally {
            inFlight.remove(id);
        }
    }

    /**
     * As {@link #exclusive(String, String, Body)}, holding the guard of a second instance too: the one whose
     * container bears the name the operation gives a container of its own.
     */
    private <T> Outcome<T> exclusive(String what, String id, String namesake, Body<T> body) {
        if (!inFlight.add(namesake)) {
            return Outcome.failed(ProblemCode.INSTANCE_BUSY);
        }
        try {
            return exclusive(what, id, body);
        } finally {
            inFlight.remove(namesake);
        }
    }

    private static <T> Outcome<T> read(String what, Body<T> body) {
        try {
            return Outcome.ok(body.run());
        } catch (Abort | DockerException | RegistryException | RuntimeException e) {
            Problems.log(what, e);
            return Problems.outcome(e);
        }
    }

    // ---------------------------------------------------------------- mutations

    @Override
    public Outcome<Created> create(byte[] planJson, Consumer<String> target) {
        Plan plan;
        switch (PlanParser.parse(planJson)) {
            case Outcome.Ok<Plan> ok -> plan = ok.value();
            case Outcome.Failed<Plan> f -> {
                return f.cast();
            }
        }
        if (Ids.isId(plan.instanceId())) {
            target.accept(plan.instanceId());
        } else {
            // Never registrable: report every violation, without a guard or a registry lookup.
            return read("create", () -> {
                approvals.approve(plan, List.of(), "");
                throw new Abort(ProblemCode.INTERNAL_ERROR);
            });
        }
        return exclusive("create", plan.instanceId(), () -> creates.create(plan));
    }

    @Override
    public Outcome<InstanceView> replace(String instanceId, byte[] bodyJson) {
        ReplaceRequest req;
        switch (PlanParser.parseReplace(bodyJson)) {
            case Outcome.Ok<ReplaceRequest> ok -> req = ok.value();
            case Outcome.Failed<ReplaceRequest> f -> {
                return f.cast();
            }
        }
        if (!req.plan().instanceId().equals(instanceId)) {
            return Abort.rejected("plan.instanceId", Approvals.RULE_INSTANCE_MISMATCH).outcome();
        }
        if (!Ids.isId(instanceId)) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        // The prior container is renamed to the name of instance <id>-r<rev>'s container; Replaces refuses the
        // replace when that container exists, and this guard keeps a create of that instance from making it
        // between the check and the rename (the rename failed after the stop: the instance was stopped and started
        // again, and the answer was 500). A revision other than the expected one is refused before any rename.
        return exclusive("replace", instanceId, new InstanceId(instanceId).priorNamesake(req.expectedRevision()),
                () -> replaces.replace(settled(Tracked.load(registry, instanceId)), req.plan(),
                        req.expectedRevision()));
    }

    @Override
    public Outcome<InstanceView> start(String instanceId) {
        return onInstance("start", instanceId, t -> runs.start(t));
    }

    @Override
    public Outcome<InstanceView> stop(String instanceId, int timeoutSeconds) {
        return onInstance("stop", instanceId, t -> runs.stop(t, timeoutSeconds));
    }

    @Override
    public Outcome<InstanceView> restart(String instanceId, int timeoutSeconds) {
        return onInstance("restart", instanceId, t -> runs.restart(t, timeoutSeconds));
    }

    @Override
    public Outcome<Deleted> delete(String instanceId) {
        return onInstance("delete", instanceId, t -> {
            deletes.delete(t);
            return Deleted.INSTANCE;
        });
    }

    @FunctionalInterface
    private interface OnRecord<T> {
        T run(Tracked t) throws Abort, DockerException, RegistryException;
    }

    private <T> Outcome<T> onInstance(String what, String id, OnRecord<T> body) {
        if (!Ids.isId(id)) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        return exclusive(what, id, () -> body.run(settled(Tracked.load(registry, id))));
    }

    /**
     * A replace whose rollback the engine failed (it could not even stop the containers) leaves its record
     * {@code REPLACING} or {@code ROLLING_BACK}, and no request event is allowed there: only the next start's
     * reconciliation rolled it back, so an engine outage during a replace stranded the instance until someone
     * restarted a healthy agent (SPEC 10 wants it rolled back or stopped in {@code INTERVENTION_REQUIRED}). Under
     * the instance's guard no replace of it runs, so such a record is one left behind: the next mutation on it
     * first runs the same recovery the start would, as the next create does for a left {@code CREATING}, and then
     * goes on from where that ends.
     *
     * <p>What the recovery did is told to the listener (an audit line and a count each, as at a start): it may have
     * removed a container, made one again, committed the new revision or given up into {@code INTERVENTION_REQUIRED},
     * none of which the request's own line says.
     *
     * @param t the record, loaded under the guard
     * @return it, settled
     * @throws Abort the code of what stopped the recovery ({@code docker_unavailable} while the engine is still
     *               away), which leaves the record where it stopped, for the next request or start
     */
    private Tracked settled(Tracked t) throws Abort {
        if (t.state() != InstanceState.REPLACING && t.state() != InstanceState.ROLLING_BACK) {
            return t;
        }
        Replaces.Recovery r = replaces.recovery(t);
        if (!(r.end() instanceof Step.End end)) {
            Exception failure = r.failure().orElse(new Abort(ProblemCode.INTERVENTION_REQUIRED));
            Problems.log("recovery of " + t.id() + " before a request", failure);
            tell(t.id(), Reconciliations.Action.LEFT_UNRESOLVED);
            throw failure instanceof Abort a ? a : new Abort(Problems.code(failure));
        }
        LOG.log(System.Logger.Level.INFO, "lifecycle: {0}: a replace left unfinished was resolved ({1})", t.id(),
                t.state());
        tell(t.id(), Reconciler.replaceAction(end));
        return t;
    }

    private void tell(String id, Reconciliations.Action action) {
        try {
            listener.resolvedByRequest(id, action);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "lifecycle: the reconciliation listener failed", e);
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Outcome<InstanceView> inspect(String instanceId) {
        if (!Ids.isId(instanceId)) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        return read("inspect " + instanceId, () -> ids.view(Tracked.load(registry, instanceId).record()));
    }

    /**
     * Stats of a settled instance only: {@code CREATED}, {@code RUNNING} or {@code STOPPED}
     * (a container that is not running reports zeros, as the engine does);
     * {@code intervention_required} from {@code INTERVENTION_REQUIRED}, {@code invalid_transition}
     * while an operation is unfinished, {@code identity_mismatch} if the registered container is
     * missing or not ours.
     */
    @Override
    public Outcome<Stats> stats(String instanceId) {
        if (!Ids.isId(instanceId)) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        return read("stats " + instanceId, () -> {
            Tracked t = Tracked.load(registry, instanceId);
            if (!Phase.of(t.state()).settled()) {
                throw new Abort(t.state() == InstanceState.INTERVENTION_REQUIRED ? ProblemCode.INTERVENTION_REQUIRED
                        : ProblemCode.INVALID_TRANSITION);
            }
            ContainerStats s = docker.stats(ids.requireCurrent(t.record()).id());
            return new Stats(s.cpuPercent(), s.memoryBytes(), s.memoryLimitBytes(), s.pids(), s.networkRxBytes(),
                    s.networkTxBytes(), s.blockReadBytes(), s.blockWriteBytes());
        });
    }

    @Override
    public Outcome<List<InstanceSummary>> list() {
        return read("list", () -> {
            List<Lookup> lookups = registry.all();
            Listing last = lastListing;
            if (last != null && last.lookups() == lookups) {
                return last.summaries();
            }
            List<InstanceSummary> out = new ArrayList<>();
            boolean tampered = false;
            for (Lookup l : lookups) {
                switch (l) {
                    case Lookup.Found f -> out.add(Records.summary(f.record()));
                    case Lookup.Tampered x -> {
                        tampered = true;
                        LOG.log(System.Logger.Level.WARNING, "lifecycle: a registry record fails authentication; not listed");
                    }
                    case Lookup.Absent x -> {
                    }
                }
            }
            out.sort(Comparator.comparing(InstanceSummary::instanceId));
            List<InstanceSummary> summaries = List.copyOf(out);
            if (!tampered) { // a tampered record is warned of on every listing
                lastListing = new Listing(lookups, summaries);
            }
            return summaries;
        });
    }

    @Override
    public Outcome<List<PortAvailability>> checkPorts(List<HostPort> bindings) {
        return read("check-ports", () -> {
            List<HostPort> taken = new ArrayList<>(approvals.publishedHostPorts());
            approvals.registered().bindings().values().forEach(taken::addAll);
            return bindings.stream()
                    .map(b -> new PortAvailability(b, taken.stream().noneMatch(b::conflictsWith))).toList();
        });
    }

    @Override
    public Outcome<List<DiskUsage>> checkDisk(List<String> paths) {
        return read("check-disk", () -> {
            List<Path> resolved = switch (policy.checkPaths(paths)) {
                case Outcome.Ok<List<Path>> ok -> ok.value();
                case Outcome.Failed<List<Path>> f -> throw Abort.of(f);
            };
            List<DiskUsage> out = new ArrayList<>();
            for (int i = 0; i < resolved.size(); i++) {
                try {
                    FileStore store = Files.getFileStore(resolved.get(i));
                    out.add(new DiskUsage(paths.get(i), store.getTotalSpace(), store.getUsableSpace()));
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "lifecycle: check-disk cannot read a file store");
                    throw new Abort(ProblemCode.INTERNAL_ERROR);
                }
            }
            return List.copyOf(out);
        });
    }

    @Override
    public Outcome<Health> health(long arrivedNanos) {
        try {
            pings.get(arrivedNanos);
            return Outcome.ok(Health.OK);
        } catch (DockerException e) {
            LOG.log(System.Logger.Level.DEBUG, "lifecycle: health: {0}", Problems.kind(e));
            return Outcome.failed(ProblemCode.DOCKER_UNAVAILABLE);
        }
    }
}
