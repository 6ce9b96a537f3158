package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Created;
import io.dogama.agent.lifecycle.DiskUsage;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.PortAvailability;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.lifecycle.Stats;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.registry.InstanceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The operations against the real engine: happy paths and the refusals each check must produce. */
class OperationsTest {
    private static final System.Logger LOG = System.getLogger(OperationsTest.class.getName());

    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    @Test
    void aCreateWhoseNetworkIsGoneMakesNoContainerAndLeavesNoRecord() throws Exception {
        // The network is approved by the configuration, so it is looked up beside the approval's other
        // look-ups; its absence must still end the create at the create step, undone.
        String id = h.newId();
        h.cli("network", "rm", h.network);

        failedWith(ProblemCode.INTERNAL_ERROR, h.ops.create(bytes(h.plan(id, h.source("gone"), Harness.port(), "hi"))));

        failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.inspect(id));
        assertEquals(List.of(), h.containersOf(id), "a container was made in a missing network");
    }

    @Test
    void wholeLifecycle() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        String v1 = h.plan(id, src, port, "one");

        long t0 = System.nanoTime();
        Created created = ok(h.ops.create(bytes(v1)));
        long t1 = System.nanoTime();
        assertFalse(created.existed());
        assertEquals(InstanceState.CREATED, created.instance().summary().state());
        assertEquals("created", created.instance().container().status());
        assertEquals(Harness.digest(v1), created.instance().summary().planDigest());
        assertEquals(0, created.instance().summary().revision());
        // The answer is built without asking the engine again: it must be what the engine shows.
        assertEquals(ok(h.ops.inspect(id)), created.instance(), "a create's answer is what an inspect shows");
        h.assertEnd(id, Harness.End.SETTLED);

        // idempotent repeat; another plan under the same ID is refused
        Created again = ok(h.ops.create(bytes(v1)));
        assertTrue(again.existed());
        failedWith(ProblemCode.INSTANCE_EXISTS, h.ops.create(bytes(h.plan(id, src, port, "other"))));

        long t2 = System.nanoTime();
        InstanceView running = ok(h.ops.start(id));
        long t3 = System.nanoTime();
        assertEquals(InstanceState.RUNNING, running.summary().state());
        assertEquals("running", running.container().status());
        assertTrue(running.container().startedAt().isPresent());
        h.assertEnd(id, Harness.End.SETTLED);
        // the bind mount is there, as the container sees it
        assertEquals("kept " + h.run + " data", h.cli("exec", "dogama-" + id, "/bin/busybox", "cat", "/data/index.html"));
        assertEquals(running.container().startedAt(), ok(h.ops.start(id)).container().startedAt(),
                "start of a running instance is a no-op");

        Stats stats = ok(h.ops.stats(id));
        assertEquals(33554432L, stats.memoryLimitBytes());
        assertTrue(stats.pids() >= 1);

        List<PortAvailability> ports = ok(h.ops.checkPorts(List.of(new HostPort("127.0.0.1", port, Protocol.TCP),
                new HostPort("0.0.0.0", port, Protocol.TCP), new HostPort("127.0.0.1", port, Protocol.UDP))));
        assertEquals(List.of(false, false, true), ports.stream().map(PortAvailability::available).toList());

        List<InstanceSummary> list = ok(h.ops.list());
        assertEquals(List.of(id), list.stream().map(InstanceSummary::instanceId).toList());
        assertEquals(list, ok(h.ops.list()), "nothing changed");

        long t4 = System.nanoTime();
        InstanceView stopped = ok(h.ops.stop(id, 5));
        long t5 = System.nanoTime();
        assertEquals(InstanceState.STOPPED, stopped.summary().state());
        assertEquals("exited", stopped.container().status());
        assertTrue(stopped.container().exitCode().isPresent());
        assertEquals(InstanceState.STOPPED, ok(h.ops.stop(id, 5)).summary().state(), "stop of a stopped one is ok");
        h.assertEnd(id, Harness.End.SETTLED);
        // Listings are remembered while nothing changes (registry and Operations); the stop must show.
        assertEquals(List.of(InstanceState.STOPPED), ok(h.ops.list()).stream().map(InstanceSummary::state).toList());

        InstanceView restarted = ok(h.ops.restart(id, 5));
        assertEquals(InstanceState.RUNNING, restarted.summary().state());
        assertEquals("running", restarted.container().status());
        String oldContainer = h.requireRecord(id).containerId().orElseThrow();

        // replace, keeping the same host port: the instance's own binding does not count
        String v2 = h.plan(id, src, port, "two");
        failedWith(ProblemCode.REVISION_CONFLICT, h.ops.replace(id, bytes(replaceBody(v2, 7))));
        long t6 = System.nanoTime();
        InstanceView replaced = ok(h.ops.replace(id, bytes(replaceBody(v2, 0))));
        long t7 = System.nanoTime();
        assertEquals(1, replaced.summary().revision());
        assertEquals(Harness.digest(v2), replaced.summary().planDigest());
        assertEquals(InstanceState.RUNNING, replaced.summary().state());
        assertEquals("running", replaced.container().status());
        assertTrue(h.seen(oldContainer).isEmpty(), "the old container is gone");
        assertTrue(h.seen("dogama-" + id + "-r0").isEmpty(), "no prior container is left");
        h.assertEnd(id, Harness.End.SETTLED);
        assertEquals("kept " + h.run + " data", h.cli("exec", "dogama-" + id, "/bin/busybox", "cat", "/data/index.html"));
        failedWith(ProblemCode.REVISION_CONFLICT, h.ops.replace(id, bytes(replaceBody(v2, 0))));

        long t8 = System.nanoTime();
        ok(h.ops.delete(id));
        long t9 = System.nanoTime();
        h.assertEnd(id, Harness.End.ABSENT);
        h.assertKept(src, "data");
        failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.inspect(id));
        failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.delete(id));
        assertEquals(List.of(true), ok(h.ops.checkPorts(List.of(new HostPort("127.0.0.1", port, Protocol.TCP))))
                .stream().map(PortAvailability::available).toList());

        String timing = String.format(java.util.Locale.ROOT,
                "create %.1f ms, start %.1f ms, stop %.1f ms, replace (running) %.1f ms, delete %.1f ms",
                ms(t0, t1), ms(t2, t3), ms(t4, t5), ms(t6, t7), ms(t8, t9));
        LOG.log(System.Logger.Level.INFO, "lifecycle timing: " + timing);
        Files.writeString(Path.of("target/lifecycle-timing.txt"), timing + "\n",
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private static double ms(long from, long to) {
        return (to - from) / 1e6;
    }

    @Test
    void replaceOfAStoppedInstanceLeavesTheNewOneCreated() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        InstanceView v = ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        assertEquals(InstanceState.CREATED, v.summary().state());
        assertEquals("created", v.container().status());
        assertEquals(1, v.summary().revision());
        h.assertEnd(id, Harness.End.SETTLED);
    }

    /**
     * SPEC 5 names a replace's prior container dogama-X-r<rev>, which is also the container of an instance
     * X-r<rev>. A replace of X while that instance exists is refused before X's container is touched; before,
     * it was stopped, the rename failed, it was started again and the answer was 500.
     */
    @Test
    void aReplaceWhosePriorNameIsAnotherInstancesContainerIsRefusedBeforeAnythingStops() throws Exception {
        String id = h.newId();
        String neighbour = id + "-r0";
        Path src = h.source("data");
        Path other = h.source("other");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        ok(h.ops.create(bytes(h.plan(neighbour, other, port == Harness.PORT_MAX ? port - 1 : port + 1, "n"))));
        Harness.Seen before = own(id);

        failedWith(ProblemCode.IDENTITY_MISMATCH,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        Harness.Seen after = own(id);
        assertEquals(before.startedAt(), after.startedAt(), "the instance's container was stopped and started again");
        assertTrue(after.running());
        // The harness finds containers by name prefix, so each instance's end is checked without the other's.
        h.assertEnd(id, Harness.End.SETTLED, java.util.Set.of(own(neighbour).id()));
        h.assertEnd(neighbour, Harness.End.SETTLED);
        assertEquals(0, h.requireRecord(id).revision());
    }

    /**
     * The same names, raced: the create of instance X-r<rev> in flight while X is replaced, and the other way round.
     * Each is refused {@code instance_busy} at once; before, a create made dogama-X-r0 between the replace's check and
     * its rename, and X was stopped, started again and answered 500 (found by a helper's review).
     */
    @Test
    void aReplaceAndACreateOfThePriorsNamesakeDoNotOverlap() throws Exception {
        String id = h.newId();
        String neighbour = id + "-r0";
        Path src = h.source("data");
        int port = Harness.port();
        int otherPort = port == Harness.PORT_MAX ? port - 1 : port + 1;
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        Harness.Seen before = own(id);
        String neighbourPlan = h.plan(neighbour, h.source("other"), otherPort, "n");

        // The neighbour's create holds before its container is made: the replace is refused before anything stops.
        Held create = hold(Step.CREATE_CONTAINER, () -> h.ops.create(bytes(neighbourPlan)));
        failedWith(ProblemCode.INSTANCE_BUSY, h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        assertEquals(before.startedAt(), own(id).startedAt(), "the instance's container was stopped and started again");
        ok(create.release());
        ok(h.ops.delete(neighbour));

        // The replace holds before it stops the old container: the neighbour's create is refused.
        Held replace = hold(Step.REPLACE_STOP_OLD,
                () -> h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        failedWith(ProblemCode.INSTANCE_BUSY, h.ops.create(bytes(neighbourPlan)));
        assertEquals(1, ((InstanceView) ok(replace.release())).summary().revision());
        ok(h.ops.create(bytes(neighbourPlan)));
        h.assertEnd(id, Harness.End.SETTLED, java.util.Set.of(own(neighbour).id()));
        h.assertEnd(neighbour, Harness.End.SETTLED);
    }

    /** An operation held at a step on a thread of its own until {@link #release()}. */
    private record Held(java.util.concurrent.ExecutorService pool, java.util.concurrent.CountDownLatch go,
            java.util.concurrent.Future<? extends Outcome<?>> outcome) {
        Outcome<?> release() throws Exception {
            go.countDown();
            try {
                return outcome.get(120, java.util.concurrent.TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS));
            }
        }
    }

    private Held hold(Step step, java.util.concurrent.Callable<? extends Outcome<?>> operation) throws Exception {
        java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        h.faults.current = new Harness.Script().on(step, s -> {
            reached.countDown();
            try {
                if (!go.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    Harness.FAIL.run(s);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Harness.FAIL.run(s);
            }
        });
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        Held held = new Held(pool, go, pool.submit(operation));
        if (!reached.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            held.release();
            throw new AssertionError("the operation never reached " + step);
        }
        h.faults.current = Faults.NONE;
        return held;
    }

    private Harness.Seen own(String id) {
        return h.containersOf(id).stream().filter(c -> c.instance().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void replaceMustNameTheSameInstance() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        Outcome<InstanceView> o = h.ops.replace(id, bytes(replaceBody(h.plan(h.newId(), src, port, "two"), 0)));
        failedWith(ProblemCode.PLAN_REJECTED, o);
        assertEquals(List.of(new Violation("plan.instanceId", Approvals.RULE_INSTANCE_MISMATCH)),
                ((Outcome.Failed<?>) o).violations());
        assertEquals(Harness.digest(h.plan(id, src, port, "one")), h.requireRecord(id).planDigest());
    }

    @Test
    void replaceViolationsCarryThePlanPrefix() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        Outcome<InstanceView> o = h.ops.replace(id,
                bytes(replaceBody(h.plan(id, h.root.resolve("nope"), port, "two"), 0)));
        failedWith(ProblemCode.PLAN_REJECTED, o);
        assertEquals(List.of(new Violation("plan.mounts[0].source", Rules.NOT_FOUND)),
                ((Outcome.Failed<?>) o).violations());
        h.assertEnd(id, Harness.End.SETTLED);
    }

    @Test
    void unknownAndInvalidIds() {
        for (String id : List.of("t-nothing-here", "Bad_ID", "../x")) {
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.inspect(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.start(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.stop(id, 1));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.restart(id, 1));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.delete(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.stats(id));
        }
    }

    @Test
    void invalidPlanIsRejectedBeforeAnythingHappens() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        String bad = h.plan(id, src, 80, "one");
        Outcome<Created> o = h.ops.create(bytes(bad));
        failedWith(ProblemCode.PLAN_REJECTED, o);
        assertTrue(((Outcome.Failed<?>) o).violations().contains(new Violation("ports[0].hostPort",
                Rules.PORT_OUT_OF_RANGE)));
        h.assertEnd(id, Harness.End.ABSENT);
        failedWith(ProblemCode.PLAN_REJECTED, h.ops.create(bytes(h.plan("Bad_Id", src, Harness.port(), "x"))));
        failedWith(ProblemCode.MALFORMED_REQUEST, h.ops.create(bytes("{")));
    }

    @Test
    void portsOfRegisteredInstancesConflict() throws Exception {
        String a = h.newId();
        String b = h.newId();
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(a, h.source("a"), port, "one"))));
        // a is only created (publishes nothing yet): its registration alone holds the port
        failedWith(ProblemCode.PORT_CONFLICT, h.ops.create(bytes(h.plan(b, h.source("b"), port, "one"))));
        h.assertEnd(b, Harness.End.ABSENT);
        ok(h.ops.create(bytes(h.plan(b, h.root.resolve("b"), port + 1, "one"))));
        // replace of b onto a's port is a conflict too
        failedWith(ProblemCode.PORT_CONFLICT, h.ops.replace(b, bytes(replaceBody(h.plan(b, h.root.resolve("b"),
                port, "two"), 0))));
        h.assertEnd(b, Harness.End.SETTLED);
    }

    @Test
    void portsPublishedByAStrangerConflict() throws Exception {
        int port = Harness.port();
        h.cli("run", "-d", "--init", "--label", "test-run=" + h.run, "-p", "127.0.0.1:" + port + ":8080",
                Harness.DEMO_IMAGE);
        String id = h.newId();
        failedWith(ProblemCode.PORT_CONFLICT, h.ops.create(bytes(h.plan(id, h.source("data"), port, "one"))));
        assertEquals(List.of(false), ok(h.ops.checkPorts(List.of(new HostPort("127.0.0.1", port, Protocol.TCP))))
                .stream().map(PortAvailability::available).toList());
    }

    @Test
    void bindSourcesAreRevalidatedBeforeStartAndRestart() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        ok(h.ops.create(bytes(h.plan(id, src, Harness.port(), "one"))));
        // swap the source for a symlink to the same content: the container would follow the link
        Path moved = Files.move(src, h.root.resolve("elsewhere"));
        Files.createSymbolicLink(src, moved);
        Outcome<InstanceView> o = h.ops.start(id);
        failedWith(ProblemCode.PLAN_REJECTED, o);
        assertTrue(((Outcome.Failed<?>) o).violations().stream().anyMatch(v -> v.field().startsWith("mounts[0]")),
                "violation names the mount: " + o);
        assertEquals("created", h.seen("dogama-" + id).orElseThrow().status(), "not started");
        assertEquals(InstanceState.CREATED, h.requireRecord(id).state());
        failedWith(ProblemCode.PLAN_REJECTED, h.ops.restart(id, 1));
        assertEquals("created", h.seen("dogama-" + id).orElseThrow().status(), "not restarted");
        // put it back: start works again
        Files.delete(src);
        Files.move(moved, src);
        assertEquals("running", ok(h.ops.start(id)).container().status());
        ok(h.ops.delete(id));
        h.assertKept(src, "data");
    }

    @Test
    void stopTimeoutIsDefended() throws Exception {
        String id = h.newId();
        ok(h.ops.create(bytes(h.plan(id, h.source("data"), Harness.port(), "one"))));
        failedWith(ProblemCode.MALFORMED_REQUEST, h.ops.stop(id, -1));
        failedWith(ProblemCode.MALFORMED_REQUEST, h.ops.restart(id, 301));
    }

    @Test
    void checkDiskAndHealth() throws Exception {
        Path src = h.source("data");
        List<DiskUsage> d = ok(h.ops.checkDisk(List.of(src.toString(), h.root.toString())));
        assertEquals(List.of(src.toString(), h.root.toString()), d.stream().map(DiskUsage::path).toList());
        assertTrue(d.getFirst().totalBytes() > 0 && d.getFirst().usableBytes() >= 0);
        failedWith(ProblemCode.PLAN_REJECTED, h.ops.checkDisk(List.of(src.toString(), "/etc")));
        assertEquals(AgentOperations.Health.OK, ok(h.ops.health(System.nanoTime())));
    }

    @Test
    void stateMachineRefusals() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        // into INTERVENTION_REQUIRED: the replace fails, and so does its rollback
        h.faults.current = new Harness.Script().on(Step.REPLACE_START_NEW, Harness.FAIL)
                .on(Step.ROLLBACK_REMOVE_NEW, Harness.FAIL);
        failedWith(ProblemCode.INTERVENTION_REQUIRED,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        InstanceRecord r = h.assertEnd(id, Harness.End.INTERVENTION).orElseThrow();
        assertEquals(0, r.revision());
        assertEquals(InstanceState.INTERVENTION_REQUIRED, ok(h.ops.inspect(id)).summary().state());
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.start(id));
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.stop(id, 1));
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.restart(id, 1));
        failedWith(ProblemCode.INVALID_TRANSITION,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "three"), 0))));
        failedWith(ProblemCode.INTERVENTION_REQUIRED, h.ops.stats(id));
        // a create's repeat does not report it as created: the plan the record holds is invalid_transition, the
        // other one instance_exists
        String held = r.planDigest();
        for (String greeting : List.of("one", "two")) {
            String plan = h.plan(id, src, port, greeting);
            failedWith(Harness.digest(plan).equals(held) ? ProblemCode.INVALID_TRANSITION : ProblemCode.INSTANCE_EXISTS,
                    h.ops.create(bytes(plan)));
        }
        // delete is the way out, and removes both containers
        ok(h.ops.delete(id));
        h.assertEnd(id, Harness.End.ABSENT);
        h.assertKept(src, "data");
    }

    @Test
    void aLeftoverCreateIntentIsUndoneByTheNextCreate() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        String v1 = h.plan(id, src, Harness.port(), "one");
        // the create fails, and so does its clean-up: the intent stays, its container too (unrecorded)
        h.faults.current = new Harness.Script().on(Step.CREATE_COMMIT, Harness.FAIL)
                .on(Step.CREATE_UNDO_REMOVE, Harness.FAIL);
        failedWith(ProblemCode.INTERNAL_ERROR, h.ops.create(bytes(v1)));
        h.faults.current = Faults.NONE;
        assertEquals(InstanceState.CREATING, h.requireRecord(id).state());
        assertEquals(1, h.containersOf(id).size());
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.start(id));
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.delete(id));
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.stats(id));
        String leftover = h.containersOf(id).getFirst().id();

        Created c = ok(h.ops.create(bytes(v1)));
        assertFalse(c.existed());
        h.assertEnd(id, Harness.End.SETTLED);
        assertTrue(h.seen(leftover).isEmpty(), "the incomplete container was removed");
    }

    @Test
    void aFailedDeleteIsFinishedByAskingAgain() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        String v1 = h.plan(id, src, Harness.port(), "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        h.faults.current = new Harness.Script().on(Step.DELETE_REMOVE_CONTAINER, Harness.FAIL);
        failedWith(ProblemCode.INTERNAL_ERROR, h.ops.delete(id));
        h.faults.current = Faults.NONE;
        assertEquals(InstanceState.DELETING, ok(h.ops.inspect(id)).summary().state());
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.start(id));
        // the create's repeat does not report an instance being deleted as created
        failedWith(ProblemCode.INVALID_TRANSITION, h.ops.create(bytes(v1)));
        ok(h.ops.delete(id));
        h.assertEnd(id, Harness.End.ABSENT);
        h.assertKept(src, "data");
    }

    /** What a request's recovery told, as "id ACTION". */
    private static final class Heard implements Reconciliations {
        final List<String> byRequest = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> atStart = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void reconciled(String instanceId, Action action) {
            atStart.add(instanceId + " " + action);
        }

        @Override
        public void resolvedByRequest(String instanceId, Action action) {
            byRequest.add(instanceId + " " + action);
        }
    }

    /**
     * Leaves the instance {@code ROLLING_BACK}: the engine fails a replace, its rollback and even the rollback's
     * stop (an outage), so that no request event is allowed in the state the record is in.
     *
     * @return the container the instance had before the replace
     */
    private String leftRollingBack(String id, Path src, int port) throws Exception {
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        String old = h.requireRecord(id).containerId().orElseThrow();
        h.faults.current = new Harness.Script().on(Step.REPLACE_START_NEW, Harness.FAIL)
                .on(Step.ROLLBACK_REMOVE_NEW, Harness.FAIL).on(Step.ROLLBACK_STOP_ALL, Harness.FAIL);
        failedWith(ProblemCode.INTERVENTION_REQUIRED,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        assertEquals(InstanceState.ROLLING_BACK, ok(h.ops.inspect(id)).summary().state());
        assertEquals(2, h.containersOf(id).size(), "the new container and the old one");
        return old;
    }

    /**
     * Once the engine is back, the next mutation on a record left {@code ROLLING_BACK} rolls it back first, in the
     * same process, and tells the listener what it did (an audit line and a count at the agent); before, only a
     * restart of the agent did, and a delete was {@code invalid_transition}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"delete", "start", "stop", "restart", "replace"})
    void aReplaceLeftUnfinishedByTheEngineIsResolvedByTheNextRequest(String next) throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        String old = leftRollingBack(id, src, port);
        Heard heard = new Heard();
        Operations ops = new Operations(h.docker, h.registry, h.policy, h.faults, heard);
        switch (next) {
            case "delete" -> {
                ok(ops.delete(id));
                h.assertEnd(id, Harness.End.ABSENT);
                assertTrue(h.containersOf(id).isEmpty(), "both containers removed");
            }
            case "start", "stop", "restart" -> {
                InstanceView v = ok(switch (next) {
                    case "start" -> ops.start(id);
                    case "stop" -> ops.stop(id, 1);
                    default -> ops.restart(id, 1);
                });
                assertEquals(next.equals("stop") ? InstanceState.STOPPED : InstanceState.RUNNING,
                        v.summary().state());
                assertEquals(0, v.summary().revision());
                assertEquals(Optional.of(old), h.requireRecord(id).containerId(), "the old container, rolled back");
                h.assertEnd(id, Harness.End.SETTLED);
            }
            default -> {
                InstanceView v = ok(ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "three"), 0))));
                assertEquals(1, v.summary().revision());
                h.assertEnd(id, Harness.End.SETTLED);
            }
        }
        assertEquals(List.of(id + " " + Reconciliations.Action.REPLACE_ROLLED_BACK), heard.byRequest);
        assertEquals(List.of(), heard.atStart);
        h.assertKept(src, "data");
    }

    /**
     * While the engine is still away, the request's recovery cannot finish either: the answer is what stopped it
     * ({@code docker_unavailable}, which a client retries: the run's last failure, not its first), not
     * {@code intervention_required}; the listener hears it left unresolved; and the next request, with the engine
     * back, finishes it.
     */
    @Test
    void aRecoveryTheEngineStillFailsAnswersWhatStoppedIt() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        String old = leftRollingBack(id, src, Harness.port());
        Heard heard = new Heard();
        Operations ops = new Operations(h.docker, h.registry, h.policy, h.faults, heard);
        Harness.Action away = step -> {
            throw new io.dogama.agent.docker.DockerUnavailableException("injected: the engine is away at " + step);
        };
        // The first failure is a refusal (400); what stops the run is the engine gone at the last resort, the stop.
        h.faults.current = new Harness.Script().on(Step.ROLLBACK_REMOVE_NEW, Harness.FAIL)
                .on(Step.ROLLBACK_STOP_ALL, away);
        failedWith(ProblemCode.DOCKER_UNAVAILABLE, ops.delete(id));
        h.faults.current = Faults.NONE;
        assertEquals(List.of(id + " " + Reconciliations.Action.LEFT_UNRESOLVED), heard.byRequest);
        assertEquals(InstanceState.ROLLING_BACK, h.requireRecord(id).state());
        ok(ops.start(id));
        assertEquals(Optional.of(old), h.requireRecord(id).containerId());
        h.assertEnd(id, Harness.End.SETTLED);
        assertEquals(List.of(id + " " + Reconciliations.Action.LEFT_UNRESOLVED,
                id + " " + Reconciliations.Action.REPLACE_ROLLED_BACK), heard.byRequest);
    }

    @Test
    void replaceRecreatesAContainerThatWentMissing() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        h.cli("rm", "-f", h.requireRecord(id).containerId().orElseThrow());
        assertEquals(Identities.STATUS_MISSING, ok(h.ops.inspect(id)).container().status());
        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.start(id));
        InstanceView v = ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        assertEquals(1, v.summary().revision());
        assertEquals(InstanceState.CREATED, v.summary().state(), "it was not running, so the new one is not started");
        h.assertEnd(id, Harness.End.SETTLED);
    }

    @Test
    void withoutAnEngineTheAgentDoesNotStartAndReportsUnavailable() throws Exception {
        io.dogama.agent.docker.DockerEngine closed = io.dogama.agent.docker.DockerEngine.connect(h.socket);
        closed.close();
        org.junit.jupiter.api.Assertions.assertThrows(io.dogama.agent.lifecycle.LifecycleException.class,
                () -> io.dogama.agent.lifecycle.Lifecycle.start(closed, h.registry, h.policy));
        String id = h.newId();
        ok(h.ops.create(bytes(h.plan(id, h.source("data"), Harness.port(), "one"))));
        Operations down = new Operations(closed, h.registry, h.policy, Faults.NONE);
        failedWith(ProblemCode.DOCKER_UNAVAILABLE, down.health(System.nanoTime()));
        failedWith(ProblemCode.DOCKER_UNAVAILABLE, down.inspect(id));
        failedWith(ProblemCode.DOCKER_UNAVAILABLE, down.start(id));
        failedWith(ProblemCode.DOCKER_UNAVAILABLE, down.create(bytes(h.plan(h.newId(), h.root.resolve("data"),
                Harness.port(), "one"))));
        assertEquals(InstanceState.CREATED, h.requireRecord(id).state(), "nothing changed without an engine");
        assertEquals(1, ok(down.list()).size(), "the registry still answers");
    }

    /**
     * What an engine leaves when it finishes a create after the agent gave up on its answer and searched for
     * it in vain: a container named and labelled for the instance and its plan, never started, with no record
     * (the intent was dropped). Made here by creating the instance and then dropping its record.
     *
     * @return the left container's ID
     */
    private String leftByALateCreate(String id, String plan, boolean started) throws Exception {
        ok(h.ops.create(bytes(plan)));
        if (started) {
            ok(h.ops.start(id));
        }
        String left = h.requireRecord(id).containerId().orElseThrow();
        io.dogama.agent.registry.Lookup.Found f = (io.dogama.agent.registry.Lookup.Found) h.registry.get(id);
        h.registry.remove(id, f.generation());
        assertTrue(h.record(id).isEmpty());
        return left;
    }

    @Test
    void aCreateClearsANeverStartedContainerAnEarlierCreateOfTheSamePlanLeftUnrecorded() throws Exception {
        String id = h.newId();
        String v1 = h.plan(id, h.source("late"), Harness.port(), "one");
        String left = leftByALateCreate(id, v1, false);

        Created again = ok(h.ops.create(bytes(v1)));

        assertFalse(again.existed());
        assertTrue(h.seen(left).isEmpty(), "the left container is still there");
        assertFalse(h.requireRecord(id).containerId().orElseThrow().equals(left));
        h.assertEnd(id, Harness.End.SETTLED);
    }

    @Test
    void aCreateNeverClearsAContainerThatRanOrWasMadeFromAnotherPlan() throws Exception {
        String ran = h.newId();
        String v1 = h.plan(ran, h.source("ran"), Harness.port(), "one");
        String started = leftByALateCreate(ran, v1, true);
        failedWith(ProblemCode.INSTANCE_EXISTS, h.ops.create(bytes(v1)));
        assertTrue(h.seen(started).orElseThrow().running(), "a container that ran was touched");
        assertTrue(h.record(ran).isEmpty());

        String other = h.newId();
        Path src = h.source("other");
        int port = Harness.port();
        String left = leftByALateCreate(other, h.plan(other, src, port, "one"), false);
        failedWith(ProblemCode.INSTANCE_EXISTS, h.ops.create(bytes(h.plan(other, src, port, "two"))));
        assertEquals("created", h.seen(left).orElseThrow().status(), "a container of another plan was touched");
        assertTrue(h.record(other).isEmpty());
    }
}
