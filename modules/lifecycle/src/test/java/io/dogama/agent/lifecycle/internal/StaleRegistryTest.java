package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Registry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An older, authentic copy of the registry put back while the agent was down: a backup taken during a create and
 * restored (the agent's own messages advise restoring a damaged registry from a backup), or an older head written
 * over the current one by someone without the key. The registry cannot tell it from the current one; the start-up
 * recovery then finds an intent that the engine has long since outlived. Found by session 36's review against the
 * real agent: the recovery removed the running container that a committed create had answered 201 for; and, the
 * same cause, a copy from a replace's window rolled the committed replace back (session 37).
 */
class StaleRegistryTest {
    private Harness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    @Test
    void aCopyTakenDuringACreateNeverRemovesTheContainerThatCreateMadeAndStarted() throws Exception {
        h = new Harness();
        String id = h.newId();
        String plan = h.plan(id, h.source("data"), Harness.port(), "one");
        // The copy is taken where a backup could have been: the intent is on disk, the container not yet made.
        Path copy = copyAt(Step.CREATE_CONTAINER);
        ok(h.ops.create(bytes(plan)));
        h.faults.current = Faults.NONE;
        ok(h.ops.start(id));
        Harness.Seen before = only(id);
        assertEquals("running", before.status());

        restoreAndRestart(copy);

        Harness.Seen after = only(id); // the started container was not removed
        assertEquals(before.id(), after.id());
        assertEquals("running", after.status());
        // The stale intent is not acted on as the instance either: no record claims the container.
        var record = h.record(id);
        assertTrue(record.isEmpty(), () -> "record: " + record);
    }

    /**
     * The copy holds the replace's intent with the new container recorded, the prior one not yet removed; put back
     * after the commit, it once rolled the replace back: the new container removed, the old one made again.
     */
    @Test
    void aCopyTakenDuringAReplaceNeverRollsTheCommittedReplaceBack() throws Exception {
        h = new Harness();
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        String v2 = h.plan(id, src, port, "two");
        Path copy = copyAt(Step.REPLACE_START_NEW);
        ok(h.ops.replace(id, bytes(replaceBody(v2, 0))));
        h.faults.current = Faults.NONE;
        Harness.Seen before = only(id);

        restoreAndRestart(copy);

        Harness.Seen after = only(id);
        assertEquals(before.id(), after.id(), "the replace's container was removed");
        assertEquals("running", after.status());
        InstanceRecord r = h.requireRecord(id);
        assertEquals(InstanceState.RUNNING, r.state());
        assertEquals(1, r.revision());
        assertEquals(Harness.digest(v2), r.planDigest());
        assertEquals(java.util.Optional.of(before.id()), r.containerId());
    }

    /**
     * The copy holds the replace's intent from inside its create's window (the new container made, not yet
     * recorded). The crash-window rule looks for the container that create may have left; the committed replace's
     * container has run since, so it is not one that create left, and it is neither folded into the rollback nor
     * removed. The instance is left to an operator.
     */
    @Test
    void aCopyTakenInAReplacesCreateWindowNeverRemovesTheContainerThatRan() throws Exception {
        h = new Harness();
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        Path copy = copyAt(Step.REPLACE_RECORD_NEW);
        ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        Harness.Seen before = only(id);

        restoreAndRestart(copy);

        Harness.Seen after = only(id);
        assertEquals(before.id(), after.id(), "the replace's container was removed");
        assertEquals("running", after.status());
        assertEquals(InstanceState.INTERVENTION_REQUIRED, h.requireRecord(id).state());
    }

    /**
     * As above, for an instance that never ran: the committed replace's container was never started either, so the
     * crash-window search takes it for the one its create left. It used to be folded in and removed, the old
     * container made again, and the plan put back to revision 0. A prior container that is gone before the replace's
     * own removal step is never made again by a start; the instance is left to an operator with the new container.
     */
    @Test
    void aCopyTakenInACreateWindowOfAReplaceOfAnInstanceThatNeverRanLeavesItToAnOperator() throws Exception {
        h = new Harness();
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        Path copy = copyAt(Step.REPLACE_RECORD_NEW);
        ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        Harness.Seen before = only(id);
        assertEquals("created", before.status());

        // The first start's give-up is cut short (the engine fails the stop): its verdict must hold at the next start.
        Harness.Script cut = new Harness.Script().on(Step.ROLLBACK_STOP_ALL, Harness.FAIL);
        restoreAndRestart(copy, cut);
        assertTrue(cut.reached(Step.ROLLBACK_STOP_ALL), cut.reached::toString);
        assertEquals(before, only(id));
        InstanceRecord first = h.requireRecord(id);
        assertEquals(InstanceState.REPLACING, first.state(), "the verdict is taken before ROLLING_BACK is written");
        assertEquals(java.util.Optional.of(before.id()), first.containerId(), "the fold is written");
        assertEquals(java.util.Optional.of(Step.ROLLBACK_REMOVE_NEW), Step.ofMarker(first.step()));
        h.restartAgent();

        Harness.Seen after = only(id);
        assertEquals(before.id(), after.id(), "the replace's container was removed");
        InstanceRecord r = h.requireRecord(id);
        assertEquals(InstanceState.INTERVENTION_REQUIRED, r.state());
        assertEquals(java.util.Optional.of(before.id()), r.containerId(), "the record names what is there");
    }

    /**
     * The copy holds a rollback from inside its recreate's window (the old container made again, not yet recorded).
     * Put back after that rollback committed and started the recreated container, the search for what the recreate
     * left took the running container for it and removed it.
     */
    @Test
    void aCopyTakenInARollbacksRecreateWindowNeverRemovesTheContainerThatRan() throws Exception {
        h = new Harness();
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));
        ok(h.ops.start(id));
        Path copy = copyAt(Step.ROLLBACK_RECORD_OLD);
        // the commit fails after the old container was removed: the request's rollback makes it again
        ((Harness.Script) h.faults.current).on(Step.REPLACE_COMMIT, Harness.FAIL);
        Harness.failedWith(io.dogama.agent.core.ProblemCode.INTERNAL_ERROR,
                h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
        h.faults.current = Faults.NONE;
        assertEquals(InstanceState.RUNNING, h.requireRecord(id).state());
        Harness.Seen before = only(id);
        assertEquals("running", before.status());

        restoreAndRestart(copy);

        Harness.Seen after = only(id);
        assertEquals(before.id(), after.id(), "the recreated, running container was removed");
        assertEquals("running", after.status());
        // the prior plan cannot come back beside it (its port is taken): left to an operator, nothing named runs
        assertEquals(InstanceState.INTERVENTION_REQUIRED, h.requireRecord(id).state());
    }

    /** @return the instance's one container (the test fails if there is none or more) */
    private Harness.Seen only(String id) throws Exception {
        List<Harness.Seen> all = h.containersOf(id);
        assertEquals(1, all.size(), all::toString);
        return all.get(0);
    }

    /** Copies the registry's file when the operation reaches {@code step} (before it acts). */
    private Path copyAt(Step step) throws IOException {
        Path copy = Files.createTempDirectory("dogama-stale-").resolve("registry.dat");
        h.faults.current = new Harness.Script().on(step, s -> {
            try {
                Files.copy(h.dataDir.resolve("registry.dat"), copy);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return copy;
    }

    /** The agent stops, the copy is put back, a new agent starts and reconciles. */
    private void restoreAndRestart(Path copy) throws Exception {
        restoreAndRestart(copy, Faults.NONE);
    }

    /** As {@link #restoreAndRestart(Path)}, with {@code during} as the fault seam of that start's reconciliation. */
    private void restoreAndRestart(Path copy, Faults during) throws Exception {
        h.registry.close();
        Files.copy(copy, h.dataDir.resolve("registry.dat"), StandardCopyOption.REPLACE_EXISTING);
        h.registry = Registry.open(h.dataDir, 200);
        h.restartAgent(io.dogama.agent.lifecycle.Reconciliations.NONE, during);
    }
}
