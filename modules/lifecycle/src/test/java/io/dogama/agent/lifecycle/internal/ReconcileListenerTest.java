package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.HALT;
import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        h.faults.current = new Harness.Script().on(step, HALT);
        assertThrows(Harness.Halt.class, op::run);
        h.restartAgent((instance, action) -> heard.add(instance + " " + action));
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
    void anInterruptedDeleteIsFinishedAndASettledInstanceTellsNothing() throws Exception {
        ok(h.ops.create(bytes(v1)));
        crashAt(Step.DELETE_REMOVE_CONTAINER, () -> h.ops.delete(id));
        assertEquals(List.of(id + " " + Reconciliations.Action.DELETE_FINISHED), heard);
        heard.clear();
        ok(h.ops.create(bytes(v1)));
        h.restartAgent((instance, action) -> heard.add(instance + " " + action));
        assertEquals(List.of(), heard);
    }
}
