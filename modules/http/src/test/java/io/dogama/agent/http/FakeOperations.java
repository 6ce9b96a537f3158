package io.dogama.agent.http;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Ids;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Created;
import io.dogama.agent.lifecycle.DiskUsage;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.PortAvailability;
import io.dogama.agent.lifecycle.Stats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An in-memory {@link AgentOperations}: a small registry with the state changes the routes ask for,
 * and a log of every call with its arguments so that tests can check what the HTTP layer passed on.
 */
final class FakeOperations implements AgentOperations {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<byte[]> bodies = new CopyOnWriteArrayList<>();
    volatile boolean dockerUp = true;
    volatile boolean explode;
    /** When set, health() waits for it: a slow Docker call. */
    volatile java.util.concurrent.CountDownLatch healthGate;
    /** When set, stop() waits for it, counted in {@link #stopsWaiting}: a stop waiting out its timeout. */
    volatile java.util.concurrent.CountDownLatch stopGate;
    final java.util.concurrent.atomic.AtomicInteger stopsWaiting = new java.util.concurrent.atomic.AtomicInteger();
    private final Map<String, Entry> instances = new TreeMap<>();

    private record Entry(String plan, long revision, InstanceState state, String status) {
    }

    /** Forgets every instance and every recorded call: the state a fresh fake starts in. */
    synchronized void reset() {
        instances.clear();
        calls.clear();
        bodies.clear();
    }

    /** @return true once {@code gate} (if set) is opened within 30 s: a slow Docker call that ends */
    private static boolean passed(java.util.concurrent.CountDownLatch gate) {
        if (gate == null) {
            return true;
        }
        try {
            return gate.await(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void record(String call) {
        calls.add(call);
        if (explode) {
            throw new IllegalStateException("boom: /var/run/docker.sock secret-ish detail");
        }
    }

    @Override
    public Outcome<Health> health(long arrivedNanos) {
        record("health");
        if (!passed(healthGate)) {
            return Outcome.failed(ProblemCode.DOCKER_UNAVAILABLE);
        }
        return dockerUp ? Outcome.ok(Health.OK) : Outcome.failed(ProblemCode.DOCKER_UNAVAILABLE);
    }

    @Override
    public Outcome<List<DiskUsage>> checkDisk(List<String> paths) {
        record("checkDisk " + paths);
        List<Violation> violations = new ArrayList<>();
        List<DiskUsage> out = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            if (!paths.get(i).startsWith("/srv/")) {
                violations.add(new Violation("paths[" + i + "]", "outside_allowed_root"));
            }
            out.add(new DiskUsage(paths.get(i), 1000L * (i + 1), 500L * (i + 1)));
        }
        return violations.isEmpty() ? Outcome.ok(out) : Outcome.rejected(violations);
    }

    @Override
    public Outcome<List<PortAvailability>> checkPorts(List<HostPort> bindings) {
        record("checkPorts " + bindings);
        return Outcome.ok(bindings.stream().map(b -> new PortAvailability(b, b.hostPort() != 25565)).toList());
    }

    @Override
    public synchronized Outcome<List<InstanceSummary>> list() {
        record("list");
        return Outcome.ok(instances.entrySet().stream().map(e -> summary(e.getKey(), e.getValue())).toList());
    }

    @Override
    public synchronized Outcome<Created> create(byte[] planJson, Consumer<String> target) {
        record("create");
        bodies.add(planJson);
        String id;
        try {
            Object value = JSON.std.mapFrom(planJson).get("instanceId");
            if (!(value instanceof String s)) {
                return Outcome.rejected(List.of(new Violation("instanceId", "missing")));
            }
            id = s;
            if (Ids.isId(id)) {
                target.accept(id);
            }
        } catch (IOException e) {
            return Outcome.rejected(List.of(new Violation("", "malformed_json")));
        }
        String plan = new String(planJson, StandardCharsets.UTF_8);
        Entry existing = instances.get(id);
        if (existing != null) {
            return existing.plan().equals(plan) ? Outcome.ok(new Created(view(id, existing), true))
                    : Outcome.failed(ProblemCode.INSTANCE_EXISTS);
        }
        Entry entry = new Entry(plan, 1, InstanceState.CREATED, "created");
        instances.put(id, entry);
        return Outcome.ok(new Created(view(id, entry), false));
    }

    @Override
    public synchronized Outcome<InstanceView> replace(String instanceId, byte[] bodyJson) {
        record("replace " + instanceId);
        bodies.add(bodyJson);
        Entry e = instances.get(instanceId);
        if (e == null) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        try {
            Object expected = JSON.std.mapFrom(bodyJson).get("expectedRevision");
            if (!(expected instanceof Number n) || n.longValue() != e.revision()) {
                return Outcome.failed(ProblemCode.REVISION_CONFLICT);
            }
        } catch (IOException ex) {
            return Outcome.rejected(List.of(new Violation("", "malformed_json")));
        }
        Entry next = new Entry(new String(bodyJson, StandardCharsets.UTF_8), e.revision() + 1, e.state(), e.status());
        instances.put(instanceId, next);
        return Outcome.ok(view(instanceId, next));
    }

    @Override
    public synchronized Outcome<InstanceView> inspect(String instanceId) {
        record("inspect " + instanceId);
        Entry e = instances.get(instanceId);
        return e == null ? Outcome.failed(ProblemCode.UNKNOWN_INSTANCE) : Outcome.ok(view(instanceId, e));
    }

    @Override
    public synchronized Outcome<Stats> stats(String instanceId) {
        record("stats " + instanceId);
        if (!instances.containsKey(instanceId)) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        return Outcome.ok(new Stats(12.5, 1024, 2048, 7, 100, 200, 300, 400));
    }

    @Override
    public synchronized Outcome<InstanceView> start(String instanceId) {
        record("start " + instanceId);
        return transition(instanceId, InstanceState.RUNNING, "running");
    }

    @Override
    public Outcome<InstanceView> stop(String instanceId, int timeoutSeconds) {
        java.util.concurrent.CountDownLatch gate = stopGate;
        if (gate != null) {
            stopsWaiting.incrementAndGet();
        }
        if (!passed(gate)) {
            return Outcome.failed(ProblemCode.DOCKER_UNAVAILABLE);
        }
        synchronized (this) {
            record("stop " + instanceId + " " + timeoutSeconds);
            return transition(instanceId, InstanceState.STOPPED, "exited");
        }
    }

    @Override
    public synchronized Outcome<InstanceView> restart(String instanceId, int timeoutSeconds) {
        record("restart " + instanceId + " " + timeoutSeconds);
        return transition(instanceId, InstanceState.RUNNING, "running");
    }

    @Override
    public synchronized Outcome<Deleted> delete(String instanceId) {
        record("delete " + instanceId);
        return instances.remove(instanceId) == null ? Outcome.failed(ProblemCode.UNKNOWN_INSTANCE)
                : Outcome.ok(Deleted.INSTANCE);
    }

    private Outcome<InstanceView> transition(String id, InstanceState state, String status) {
        Entry e = instances.get(id);
        if (e == null) {
            return Outcome.failed(ProblemCode.UNKNOWN_INSTANCE);
        }
        Entry next = new Entry(e.plan(), e.revision(), state, status);
        instances.put(id, next);
        return Outcome.ok(view(id, next));
    }

    private static InstanceSummary summary(String id, Entry e) {
        return new InstanceSummary(id, "demo-http", "1.0.0", "sha256:" + "ab".repeat(32), e.revision(), e.state());
    }

    private static InstanceView view(String id, Entry e) {
        Optional<String> startedAt = "running".equals(e.status()) ? Optional.of("2026-12-01T19:04:05Z")
                : Optional.empty();
        Optional<Integer> exitCode = "exited".equals(e.status()) ? Optional.of(137) : Optional.empty();
        return new InstanceView(summary(id, e), new InstanceView.ContainerView(e.status(), startedAt, exitCode));
    }
}
