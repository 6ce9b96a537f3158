package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.FAIL;
import static io.dogama.agent.lifecycle.internal.Harness.HALT;
import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static io.dogama.agent.lifecycle.internal.Step.CREATE_COMMIT;
import static io.dogama.agent.lifecycle.internal.Step.REPLACE_COMMIT;
import static io.dogama.agent.lifecycle.internal.Step.REPLACE_START_NEW;
import static io.dogama.agent.lifecycle.internal.Step.ROLLBACK_REMOVE_NEW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.registry.InstanceRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * For EVERY {@link Step} of create, replace, rollback and delete, against the real engine: (a) a run
 * whose step fails (a simulated engine failure: the operation's own error handling runs) and (b) a
 * run halted at the step (an {@link Error} nothing catches, like a crash), after which a NEW agent
 * (new registry handle on the same data directory, new engine client) reconciles. Each run ends with
 * no orphan, incomplete or duplicate container, the prior instance restored (or, where a start-up finds the old
 * container already removed, the replace finished) or left stopped in {@code INTERVENTION_REQUIRED}, and the
 * bind-mounted file untouched. A new step in the enum gets
 * both tests automatically; the test also proves the step was actually reached.
 */
class FaultTest {
    private Harness h;
    private String id;
    private Path src;
    private String v1;
    private String v2;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
        id = h.newId();
        src = h.source("data");
        int port = Harness.port();
        v1 = h.plan(id, src, port, "one");
        // same host port: during a replace the instance's own binding does not count
        v2 = h.plan(id, src, port, "two");
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    /** Steps that must fail first so that the target step is reached at all. */
    private static List<Step> triggers(Step target) {
        return switch (target) {
            case CREATE_UNDO_REMOVE, CREATE_UNDO_DROP -> List.of(CREATE_COMMIT);
            // the old container is gone once the replace removed it: the rollback recreates it
            case ROLLBACK_RECREATE_OLD, ROLLBACK_RECORD_OLD -> List.of(REPLACE_COMMIT);
            case ROLLBACK_STOP_ALL, ROLLBACK_GIVE_UP -> List.of(REPLACE_START_NEW, ROLLBACK_REMOVE_NEW);
            case ROLLBACK_PERSIST, ROLLBACK_REMOVE_NEW, ROLLBACK_RENAME_OLD, ROLLBACK_START_OLD, ROLLBACK_COMMIT ->
                    List.of(REPLACE_START_NEW);
            default -> List.of();
        };
    }

    /** Builds the instance the operation under test starts from, and returns that operation. */
    private Supplier<Outcome<?>> prepare(Step target) throws Exception {
        switch (target.family()) {
            case CREATE -> {
                return () -> h.ops.create(bytes(v1));
            }
            case REPLACE, ROLLBACK -> {
                ok(h.ops.create(bytes(v1)));
                ok(h.ops.start(id));
                return () -> h.ops.replace(id, bytes(replaceBody(v2, 0)));
            }
            case DELETE -> {
                ok(h.ops.create(bytes(v1)));
                ok(h.ops.start(id));
                if (target == Step.DELETE_REMOVE_PRIOR) {
                    // only an instance a failed rollback left behind has a prior container to delete
                    h.faults.current = new Harness.Script().on(REPLACE_START_NEW, FAIL).on(ROLLBACK_REMOVE_NEW, FAIL);
                    failedWith(ProblemCode.INTERVENTION_REQUIRED, h.ops.replace(id, bytes(replaceBody(v2, 0))));
                    h.faults.current = Faults.NONE;
                    h.assertEnd(id, Harness.End.INTERVENTION);
                    assertEquals(2, h.containersOf(id).size(), "new and old container both kept");
                }
                return () -> h.ops.delete(id);
            }
        }
        throw new IllegalStateException("unreachable");
    }

    private Harness.Script script(Step target, Harness.Action action) {
        Harness.Script s = new Harness.Script();
        triggers(target).forEach(t -> s.on(t, FAIL));
        return s.on(target, action);
    }

    /**
     * {@link Step#REPLACE_RESUME} acts only in a start-up: the replace is halted at its commit (the old container
     * already removed), and the fault is the new agent's, in its reconciliation.
     */
    private void resumes(Harness.Action action) throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        h.faults.current = new Harness.Script().on(REPLACE_COMMIT, HALT);
        assertThrows(Harness.Halt.class, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))));
        Harness.Script script = new Harness.Script().on(Step.REPLACE_RESUME, action);
        if (action == HALT) {
            assertThrows(Harness.Halt.class, () -> h.restartAgent(Reconciliations.NONE, script));
            assertTrue(script.reached(Step.REPLACE_RESUME), "never reached: " + script.reached);
            h.restartAgent();
            assertReplaced(); // the next start finishes it
        } else {
            h.restartAgent(Reconciliations.NONE, script);
            assertTrue(script.reached(Step.REPLACE_RESUME), "never reached: " + script.reached);
            // a look the engine failed decides nothing: the record stays, nothing is removed or made
            assertState(InstanceState.REPLACING);
            assertEquals(1, h.containersOf(id).size(), "the new container, kept");
            h.restartAgent();
            assertReplaced();
        }
        h.assertKept(src, "data");
    }

    /**
     * A resumed replace whose own start then fails (here the engine refuses it; a bind source swapped meanwhile fails
     * the mounts re-check the same way): the prior container is gone and is not made again by a start, so the
     * instance is left to an operator, the new container kept and stopped; the next start changes nothing.
     */
    @org.junit.jupiter.api.Test
    void aResumedReplaceThatFailsIsLeftToAnOperator() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        h.faults.current = new Harness.Script().on(REPLACE_COMMIT, HALT);
        assertThrows(Harness.Halt.class, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))));
        Harness.Script script = new Harness.Script().on(REPLACE_START_NEW, FAIL);
        h.restartAgent(Reconciliations.NONE, script);
        assertTrue(script.reached(Step.REPLACE_RESUME) && script.reached(REPLACE_START_NEW), script.reached::toString);
        for (int start = 0; start < 2; start++) {
            InstanceRecord r = h.assertEnd(id, Harness.End.INTERVENTION).orElseThrow();
            assertEquals(Harness.digest(v2), r.planDigest());
            List<Harness.Seen> left = h.containersOf(id);
            assertEquals(1, left.size(), left::toString);
            assertEquals(r.containerId(), Optional.of(left.get(0).id()), "the new container, named by the record");
            assertTrue(!left.get(0).running(), left::toString);
            if (start == 0) {
                h.restartAgent();
            }
        }
        h.assertKept(src, "data");
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void failsAt(Step target) throws Exception {
        if (target == Step.REPLACE_RESUME) {
            resumes(FAIL);
            return;
        }
        Supplier<Outcome<?>> op = prepare(target);
        Harness.Script script = script(target, FAIL);
        h.faults.current = script;
        Outcome<?> outcome = op.get();
        h.faults.current = Faults.NONE;
        assertTrue(script.reached(target), target + " was never reached: " + script.reached);
        assertTrue(outcome instanceof Outcome.Failed<?>, "a failed step must fail the operation: " + outcome);

        // right after the failed request
        switch (target) {
            case CREATE_PERSIST_INTENT, CREATE_CONTAINER, CREATE_COMMIT -> h.assertEnd(id, Harness.End.ABSENT);
            case CREATE_UNDO_REMOVE, CREATE_UNDO_DROP -> assertState(InstanceState.CREATING);
            case ROLLBACK_PERSIST, ROLLBACK_REMOVE_NEW, ROLLBACK_RENAME_OLD, ROLLBACK_RECREATE_OLD,
                    ROLLBACK_RECORD_OLD, ROLLBACK_START_OLD, ROLLBACK_COMMIT -> {
                failedWith(ProblemCode.INTERVENTION_REQUIRED, outcome);
                h.assertEnd(id, Harness.End.INTERVENTION);
            }
            case ROLLBACK_STOP_ALL, ROLLBACK_GIVE_UP -> {
                failedWith(ProblemCode.INTERVENTION_REQUIRED, outcome);
                assertState(InstanceState.ROLLING_BACK);
            }
            case DELETE_PERSIST_INTENT -> assertRestored();
            case DELETE_REMOVE_CONTAINER, DELETE_REMOVE_PRIOR, DELETE_REMOVE_RECORD ->
                    assertState(InstanceState.DELETING);
            default -> {
                // every replace step: rolled back in the request, at the old revision
                failedWith(ProblemCode.INTERNAL_ERROR, outcome);
                assertRestored();
            }
        }
        h.assertKept(src, "data");

        // and after a restart of the agent
        h.restartAgent();
        switch (target) {
            case ROLLBACK_PERSIST, ROLLBACK_REMOVE_NEW, ROLLBACK_RENAME_OLD, ROLLBACK_RECREATE_OLD,
                    ROLLBACK_RECORD_OLD, ROLLBACK_START_OLD, ROLLBACK_COMMIT -> {
                h.assertEnd(id, Harness.End.INTERVENTION);
                // The operator's way out of INTERVENTION_REQUIRED is a delete, and it must work.
                ok(h.ops.delete(id));
                h.assertEnd(id, Harness.End.ABSENT);
            }
            default -> assertFinal(target);
        }
        h.assertKept(src, "data");
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void haltsAt(Step target) throws Exception {
        if (target == Step.REPLACE_RESUME) {
            resumes(HALT);
            return;
        }
        Supplier<Outcome<?>> op = prepare(target);
        Harness.Script script = script(target, HALT);
        h.faults.current = script;
        assertThrows(Harness.Halt.class, op::get, "the halt must reach the caller, nothing may catch it");
        assertTrue(script.reached(target), target + " was never reached: " + script.reached);

        h.restartAgent();
        if (target == REPLACE_COMMIT) {
            // the old container was removed: the start finishes the replace rather than make the old one again
            assertReplaced();
        } else {
            assertFinal(target);
        }
        h.assertKept(src, "data");
    }

    /**
     * A replace whose stop of the old container ends without the engine's answer (the agent crashed in it, or the call
     * timed out) leaves that stop to the engine, which kills the container when the stop's timeout ends. The
     * rollback, at the next start or right away, must not take the container's "running" for a state a start restores
     * (a no-op then, undone by the kill): it waits the stop out and starts the container again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"crash", "timeout", "timeout, then the rollback fails and the next request recovers",
            "timeout, then the rollback's commit fails and the next request recovers"})
    void aRollbackWaitsOutAStopTheEngineGoesOnWith(String how) throws Exception {
        boolean crash = how.equals("crash");
        boolean leftUnfinished = how.startsWith("timeout, then");
        // The rollback's own start ran, after it waited the engine's stop out: the next request must not stop it again.
        boolean startedByTheRollback = how.contains("commit fails");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        String old = h.requireRecord(id).containerId().orElseThrow();
        long since = Instant.now().getEpochSecond() - 1;
        CompletableFuture<Harness.Result> stop = new CompletableFuture<>();
        AtomicBoolean begun = new AtomicBoolean();
        // The agent's stop call: the engine begins it, then the call ends without its answer.
        DockerEngine engine = new ForwardingEngine(h.docker) {
            @Override
            public void stopContainer(String container, int timeoutSeconds) throws DockerException {
                if (!begun.compareAndSet(false, true)) {
                    real.stopContainer(container, timeoutSeconds); // the rollback's own
                    return;
                }
                // Its processes stopped, the container sits the SIGTERM out: the engine kills it at the timeout.
                h.cli("kill", "--signal", "STOP", container);
                Thread.ofPlatform().start(() -> stop.complete(h.tryCli("stop", "--time", "10", container)));
                awaitSigterm(container, since);
                if (crash) {
                    throw new Harness.Halt(Step.REPLACE_STOP_OLD);
                }
                throw new DockerTimeoutException("test: the stop's answer did not come in time");
            }
        };
        Operations ops = Agents.start(engine, h.registry, h.policy, h.faults);
        if (crash) {
            assertThrows(Harness.Halt.class, () -> ops.replace(id, bytes(replaceBody(v2, 0))));
            assertEquals(Optional.of(Step.REPLACE_STOP_OLD), Step.ofMarker(h.requireRecord(id).step()),
                    "the crash came inside the stop step");
            h.restartAgent();
        } else if (leftUnfinished) {
            // The engine fails the rollback too, even its stop: the record is left ROLLING_BACK, its marker past the
            // stop step. The next request's recovery must still know that the stop was left unanswered.
            h.faults.current = new Harness.Script().on(startedByTheRollback ? Step.ROLLBACK_COMMIT
                    : Step.ROLLBACK_START_OLD, FAIL).on(Step.ROLLBACK_STOP_ALL, FAIL);
            assertInstanceOf(Outcome.Failed.class, ops.replace(id, bytes(replaceBody(v2, 0))), "left unfinished");
            h.faults.current = Faults.NONE;
            assertEquals(InstanceState.ROLLING_BACK, h.requireRecord(id).state());
            String startedAt = h.cli("inspect", "--format", "{{.State.StartedAt}}", old);
            ok(ops.start(id));
            if (startedByTheRollback) {
                assertEquals(startedAt, h.cli("inspect", "--format", "{{.State.StartedAt}}", old),
                        "the container the rollback started was stopped and started again");
            }
        } else {
            assertInstanceOf(Outcome.Failed.class, ops.replace(id, bytes(replaceBody(v2, 0))), "rolled back");
        }
        assertEquals(0, stop.get(60, TimeUnit.SECONDS).exit(), "the engine's stop");
        assertRestored();
        assertEquals(Optional.of(old), h.requireRecord(id).containerId(), "the old container, started again");
        h.assertKept(src, "data");
    }

    /** A rollback that did start the old container again and then crashed leaves it running: never stopped again. */
    @org.junit.jupiter.api.Test
    void aRollbackThatCrashedAfterItsStartLeavesTheContainerRunning() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        h.faults.current = new Harness.Script().on(REPLACE_START_NEW, FAIL).on(Step.ROLLBACK_COMMIT, HALT);
        assertThrows(Harness.Halt.class, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))));
        String startedAt = h.cli("inspect", "--format", "{{.State.StartedAt}}", h.requireRecord(id).prior()
                .flatMap(InstanceRecord.Prior::containerId).orElseThrow());
        h.restartAgent();
        assertRestored();
        assertEquals(startedAt, h.cli("inspect", "--format", "{{.State.StartedAt}}",
                h.requireRecord(id).containerId().orElseThrow()), "not stopped and started again");
    }

    /** Waits until the engine has sent {@code container} a stop's SIGTERM (its event), for at most 30 s. */
    private static void awaitSigterm(String container, long since) {
        ProcessBuilder pb = new ProcessBuilder(Harness.cliPath(), "events", "--since", Long.toString(since),
                "--filter", "container=" + container, "--filter", "event=kill",
                "--format", "{{.Actor.Attributes.signal}}").redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("DOCKER_HOST", "unix://" + Harness.socket());
        Process events;
        try {
            events = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run docker events", e);
        }
        try {
            // Read on a thread of its own: the wait is bounded, and the process's end ends the read.
            CompletableFuture<Boolean> sent = CompletableFuture.supplyAsync(
                    () -> events.inputReader().lines().anyMatch("15"::equals), r -> Thread.ofPlatform().daemon().start(r));
            assertTrue(sent.get(30, TimeUnit.SECONDS), "the engine never sent the stop's SIGTERM");
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("no SIGTERM event within 30 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            events.destroyForcibly();
        }
    }

    /** The end state after the new agent reconciled. */
    private void assertFinal(Step target) throws Exception {
        switch (target.family()) {
            case CREATE -> h.assertEnd(id, Harness.End.ABSENT);
            case REPLACE, ROLLBACK -> assertRestored();
            case DELETE -> {
                if (target == Step.DELETE_PERSIST_INTENT) {
                    assertRestored();
                } else {
                    h.assertEnd(id, Harness.End.ABSENT);
                }
            }
        }
    }

    private void assertState(InstanceState expected) throws Exception {
        assertEquals(expected, h.requireRecord(id).state());
    }

    /** The instance as the replace asked: plan v2, revision 1, running. */
    private void assertReplaced() throws Exception {
        assertRunning(v2, 1);
    }

    /** The instance as it was before the operation: plan v1, revision 0, running. */
    private void assertRestored() throws Exception {
        assertRunning(v1, 0);
    }

    private void assertRunning(String plan, long revision) throws Exception {
        Optional<InstanceRecord> r = h.assertEnd(id, Harness.End.SETTLED);
        assertEquals(Harness.digest(plan), r.orElseThrow().planDigest());
        assertEquals(revision, r.get().revision());
        assertEquals(InstanceState.RUNNING, r.get().state());
        assertEquals("running", ok(h.ops.inspect(id)).container().status());
    }
}
