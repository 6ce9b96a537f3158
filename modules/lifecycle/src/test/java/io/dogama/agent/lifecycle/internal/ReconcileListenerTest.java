package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.HALT;
import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.lifecycle.Reconciliations;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The start-up reconciliation tells its listener what it did (for the audit log), on the real engine. */
class ReconcileListenerTest {
    private Harness h;
    private String id;
    private String v1;
    private String v2;
    private final List<String> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
        id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        v1 = h.plan(id, src, port, "one");
        v2 = h.plan(id, src, port, "two");
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private void crashAt(Step step, Runnable op) throws Exception {
        crashAt(step, op, Faults.NONE);
    }

    /** As above, with {@code during} as the fault seam of the new agent's reconciliation. */
    private void crashAt(Step step, Runnable op, Faults during) throws Exception {
        h.faults.current = new Harness.Script().on(step, HALT);
        assertThrows(Harness.Halt.class, op::run);
        h.restartAgent(this::hear, during);
    }

    /** What is told of this test's instance; the engine is shared, and another run's containers are not ours. */
    private void hear(String instance, Reconciliations.Action action) {
        if (instance.equals(id)) {
            heard.add(instance + " " + action);
        }
    }

    @Test
    void anInterruptedCreateIsUndone() throws Exception {
        crashAt(Step.CREATE_COMMIT, () -> h.ops.create(bytes(v1)));
        assertEquals(List.of(id + " " + Reconciliations.Action.CREATE_UNDONE), heard);
    }

    @Test
    void anInterruptedReplaceIsRolledBack() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id)); // the new container is started only when the old one ran
        crashAt(Step.REPLACE_START_NEW, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))));
        assertEquals(List.of(id + " " + Reconciliations.Action.REPLACE_ROLLED_BACK), heard);
    }

    @Test
    void anInterruptedReplaceWhosePriorContainerIsGoneIsFinished() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        crashAt(Step.REPLACE_COMMIT, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))));
        assertEquals(List.of(id + " " + Reconciliations.Action.REPLACE_FINISHED), heard);
    }

    @Test
    void aResumeTheEngineFailsIsLeftUnresolved() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        crashAt(Step.REPLACE_COMMIT, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))),
                new Harness.Script().on(Step.REPLACE_RESUME, Harness.FAIL));
        assertEquals(List.of(id + " " + Reconciliations.Action.LEFT_UNRESOLVED), heard);
        assertEquals(InstanceState.REPLACING, h.requireRecord(id).state());
    }

    @Test
    void aRollbackThatGivesUpIsToldAsInterventionRequiredNotAsRolledBack() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        crashAt(Step.REPLACE_START_NEW, () -> h.ops.replace(id, bytes(replaceBody(v2, 0))),
                new Harness.Script().on(Step.ROLLBACK_REMOVE_NEW, Harness.FAIL));
        assertEquals(List.of(id + " " + Reconciliations.Action.INTERVENTION_REQUIRED), heard);
        assertEquals(InstanceState.INTERVENTION_REQUIRED, h.requireRecord(id).state());
        List<Harness.Seen> left = h.containersOf(id);
        assertEquals(2, left.size(), left::toString);
        assertTrue(left.stream().noneMatch(c -> c.status().equals("running")), left::toString);
    }

    @Test
    void anInterruptedDeleteIsFinishedAndASettledInstanceTellsNothing() throws Exception {
        ok(h.ops.create(bytes(v1)));
        crashAt(Step.DELETE_REMOVE_CONTAINER, () -> h.ops.delete(id));
        assertEquals(List.of(id + " " + Reconciliations.Action.DELETE_FINISHED), heard);
        heard.clear();
        ok(h.ops.create(bytes(v1)));
        h.restartAgent(this::hear);
        assertEquals(List.of(), heard);
    }

    /**
     * The registry lost while the agent was down (its file and key gone: a data volume made anew). The instance's
     * container still runs on its folder and port; the new agent does not know it, and SPEC 5 says it is never
     * touched, listed or adopted. It is told at the start (an audit line), and left exactly as it was.
     */
    @Test
    void aContainerNoRecordNamesIsToldAtTheStartAndNeverTouched() throws Exception {
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        Harness.Seen before = h.containersOf(id).getFirst();
        assertTrue(before.running());

        h.restartAgentWithoutRegistry(this::hear);
        assertEquals(List.of(id + " " + Reconciliations.Action.UNREGISTERED_CONTAINER), heard);
        assertEquals(List.of(before), h.containersOf(id), "not touched: same container, still running, not restarted");
        assertTrue(ok(h.ops.list()).stream().noneMatch(i -> i.instanceId().equals(id)), "never listed");

        // Told at every start while it is there, and no more once an operator removed it.
        heard.clear();
        h.restartAgent(this::hear);
        assertEquals(List.of(id + " " + Reconciliations.Action.UNREGISTERED_CONTAINER), heard);
        h.cli("rm", "-f", before.id());
        heard.clear();
        h.restartAgent(this::hear);
        assertEquals(List.of(), heard);
    }
}
