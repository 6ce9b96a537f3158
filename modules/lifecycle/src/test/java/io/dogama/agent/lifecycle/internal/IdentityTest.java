package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.FAIL;
import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.registry.InstanceRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Labels prove nothing: containers the agent did not make (or no longer registers under that ID)
 * are never started, stopped, removed, listed or adopted; unsafe rollbacks end in
 * {@code INTERVENTION_REQUIRED}; and operations on one instance are exclusive.
 */
class IdentityTest {
    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private static Map<String, String> labelsOf(String id, String digest) {
        return Labels.technical(new InstanceId(id), Harness.TEMPLATE, Harness.VERSION, digest);
    }

    /** Asserts a container the agent must not touch is exactly as it was: same ID, state and start time. */
    private void assertUntouched(Harness.Seen before) {
        Harness.Seen now = h.seen(before.id()).orElseThrow(() -> new AssertionError("removed: " + before));
        assertEquals(before, now, "a container the agent does not own was changed");
    }

    @Test
    void forgedContainerWithOurLabelsIsNeverTouched() throws Exception {
        String fid = h.newId();
        Path src = h.source("data");
        String plan = h.plan(fid, src, Harness.port(), "one");
        // Labels exactly as the agent would set them for this very plan, and the deterministic name.
        String forged = h.strangerContainer("dogama-" + fid, labelsOf(fid, Harness.digest(plan)), true);
        String other = h.newId();
        String stopped = h.strangerContainer("dogama-" + other, labelsOf(other, Harness.digest(plan)), false);
        Harness.Seen before = h.seen(forged).orElseThrow();
        Harness.Seen beforeStopped = h.seen(stopped).orElseThrow();
        assertTrue(before.running());

        for (String id : List.of(fid, other)) {
            assertFalse(ok(h.ops.list()).stream().map(InstanceSummary::instanceId).toList().contains(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.inspect(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.stats(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.start(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.stop(id, 0));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.restart(id, 0));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.delete(id));
            failedWith(ProblemCode.UNKNOWN_INSTANCE, h.ops.replace(id, bytes(replaceBody(h.plan(id, src,
                    Harness.port(), "two"), 0))));
        }
        // Creating "its" instance: the name is taken by a container we did not make. Not adopted,
        // not removed, even though its labels carry this instance ID and this plan's digest.
        failedWith(ProblemCode.INSTANCE_EXISTS, h.ops.create(bytes(plan)));
        assertTrue(h.record(fid).isEmpty());
        assertUntouched(before);
        assertUntouched(beforeStopped);

        h.restartAgent();
        assertUntouched(before);
        assertUntouched(beforeStopped);
        assertEquals(List.of(), ok(h.ops.list()));
        h.assertKept(src, "data");
    }

    @Test
    void swappedContainerIsNeverTouched() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        String v1 = h.plan(id, src, port, "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        InstanceRecord r = h.requireRecord(id);
        // Behind the agent's back: same name, same labels, another container.
        h.cli("rm", "-f", r.containerId().orElseThrow());
        String impostor = h.strangerContainer("dogama-" + id, labelsOf(id, r.planDigest()), false);
        Harness.Seen created = h.seen(impostor).orElseThrow();

        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.start(id));
        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.restart(id, 0));
        assertUntouched(created);

        h.cli("start", impostor);
        Harness.Seen running = h.seen(impostor).orElseThrow();
        assertTrue(running.running());
        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.stop(id, 0));
        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.restart(id, 0));
        failedWith(ProblemCode.IDENTITY_MISMATCH, h.ops.stats(id));
        failedWith(ProblemCode.IDENTITY_MISMATCH,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        assertEquals(Identities.STATUS_MISSING, ok(h.ops.inspect(id)).container().status(),
                "inspect reports the registered container missing, never the impostor's state");
        assertUntouched(running);
        InstanceRecord after = h.requireRecord(id);
        assertEquals(r.planDigest(), after.planDigest());
        assertEquals(r.containerId(), after.containerId());
        assertEquals(InstanceState.RUNNING, after.state());

        h.restartAgent();
        assertUntouched(running);

        // Delete ends the registration and leaves the impostor alone.
        ok(h.ops.delete(id));
        assertTrue(h.record(id).isEmpty());
        assertUntouched(running);
        h.assertKept(src, "data");
    }

    @Test
    void unrelatedContainersAreNeverTouched() throws Exception {
        Harness.Seen unrelated = h.seen(h.strangerContainer("unrelated-" + h.run, Map.of(), true)).orElseThrow();
        String squatted = h.newId();
        Harness.Seen squatter = h.seen(h.strangerContainer("dogama-" + squatted, Map.of(), false)).orElseThrow();

        failedWith(ProblemCode.INSTANCE_EXISTS,
                h.ops.create(bytes(h.plan(squatted, h.source("squatted"), Harness.port(), "one"))));
        h.assertEnd(squatted, Harness.End.ABSENT, Set.of(squatter.id()));

        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        ok(h.ops.stop(id, 0));
        h.restartAgent();
        ok(h.ops.restart(id, 0));
        ok(h.ops.delete(id));
        h.restartAgent();
        assertUntouched(unrelated);
        assertUntouched(squatter);
    }

    @Test
    void rollbackThatIsNotSafeLeavesTheInstanceStopped() throws Exception {
        String id = h.newId();
        Path oldSrc = h.source("old");
        Path newSrc = h.source("new");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, oldSrc, port, "one"))));
        ok(h.ops.start(id));
        String oldContainer = h.requireRecord(id).containerId().orElseThrow();
        Path moved = h.root.resolve("old-moved");
        // Mid-replace, the old container vanishes and the prior plan's bind source moves away: the
        // rollback cannot recreate the prior instance.
        h.faults.current = new Harness.Script().on(Step.REPLACE_START_NEW, step -> {
            h.cli("rm", "-f", oldContainer);
            try {
                Files.move(oldSrc, moved);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            FAIL.run(step);
        });
        failedWith(ProblemCode.INTERVENTION_REQUIRED,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, newSrc, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        InstanceRecord r = h.assertEnd(id, Harness.End.INTERVENTION).orElseThrow();
        assertEquals(1, h.containersOf(id).size(), "the new container is kept, stopped: " + h.containersOf(id));
        assertEquals(0, r.revision());

        h.restartAgent();
        h.assertEnd(id, Harness.End.INTERVENTION);
        ok(h.ops.delete(id));
        h.assertEnd(id, Harness.End.ABSENT);
        h.assertKept(moved, "old");
        h.assertKept(newSrc, "new");
    }

    @Test
    void nameTakenDuringRollbackIsNeverTouched() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        String[] squatter = new String[1];
        // After the new container is removed and before the old one gets its name back, a stranger takes it.
        h.faults.current = new Harness.Script().on(Step.REPLACE_START_NEW, FAIL)
                .on(Step.ROLLBACK_RENAME_OLD, step -> squatter[0] = h.strangerContainer("dogama-" + id, Map.of(),
                        false));
        failedWith(ProblemCode.INTERVENTION_REQUIRED,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        Harness.Seen stranger = h.seen(squatter[0]).orElseThrow();
        assertEquals("created", stranger.status());
        InstanceRecord r = h.assertEnd(id, Harness.End.INTERVENTION, Set.of(stranger.id())).orElseThrow();
        Harness.Seen old = h.seen("dogama-" + id + "-r0").orElseThrow();
        assertEquals(r.prior().orElseThrow().containerId().orElseThrow(), old.id());
        assertFalse(old.running());

        h.restartAgent();
        assertUntouched(stranger);
        ok(h.ops.delete(id));
        h.assertEnd(id, Harness.End.ABSENT, Set.of(stranger.id()));
        assertUntouched(stranger);
        h.assertKept(src, "data");
    }

    @Test
    void oneOperationPerInstanceAtATime() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        String v1 = h.plan(id, src, port, "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        h.faults.current = new Harness.Script().on(Step.REPLACE_STOP_OLD, step -> {
            reached.countDown();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    FAIL.run(step);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                FAIL.run(step);
            }
        });
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Outcome<InstanceView>> replace = pool.submit(() -> h.ops.replace(id,
                    bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
            assertTrue(reached.await(60, TimeUnit.SECONDS), "the replace never reached its first step");

            failedWith(ProblemCode.INSTANCE_BUSY, h.ops.start(id));
            failedWith(ProblemCode.INSTANCE_BUSY, h.ops.stop(id, 0));
            failedWith(ProblemCode.INSTANCE_BUSY, h.ops.restart(id, 0));
            failedWith(ProblemCode.INSTANCE_BUSY, h.ops.delete(id));
            failedWith(ProblemCode.INSTANCE_BUSY, h.ops.create(bytes(v1)));
            failedWith(ProblemCode.INSTANCE_BUSY,
                    h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "three"), 0))));
            // reads are not blocked, and show the operation in progress
            assertEquals(InstanceState.REPLACING, ok(h.ops.inspect(id)).summary().state());
            // another instance is not blocked
            String other = h.newId();
            ok(h.ops.create(bytes(h.plan(other, h.source("other"), Harness.port(), "one"))));

            release.countDown();
            assertEquals(1, ok(replace.get(120, TimeUnit.SECONDS)).summary().revision());
        } finally {
            release.countDown();
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        }
        h.faults.current = Faults.NONE;
        assertEquals(InstanceState.STOPPED, ok(h.ops.stop(id, 0)).summary().state());
        h.assertEnd(id, Harness.End.SETTLED);
    }
}
