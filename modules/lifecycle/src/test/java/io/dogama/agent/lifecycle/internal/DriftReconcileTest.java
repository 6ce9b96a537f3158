package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.lifecycle.Reconciliations;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the start-up reconciliation finds on a settled record and only tells, on the real engine: a container whose run
 * state is not the record's ({@code STATE_DRIFT}), a registered container that is gone ({@code CONTAINER_MISSING}) or
 * is another's ({@code CONTAINER_NOT_OURS}), all from {@code Reconciler.drift}; and a record whose MAC fails
 * ({@code RECORD_TAMPERED}, {@code Reconciler.run}). In every case the record and the engine are left exactly as they
 * were: the reconciliation repairs interrupted operations, never drift.
 */
class DriftReconcileTest {
    private Harness h;
    private final List<String> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    /** What is told of this run's instances; the engine is shared, and another run's containers are not ours. */
    private void hear(String instance, Reconciliations.Action action) {
        if (instance.startsWith("t-" + h.run + "-")) {
            heard.add(instance + " " + action);
        }
    }

    private String running(String id) throws Exception {
        ok(h.ops.create(bytes(h.plan(id, h.source(id), Harness.port(), "one"))));
        ok(h.ops.start(id));
        return h.seen("dogama-" + id).orElseThrow().id();
    }

    /** Pins Reconciler.drift's Match case: {@code tell(..., STATE_DRIFT)} when the container is down but RUNNING. */
    @Test
    void aRunningInstanceWhoseContainerWasStoppedBehindTheAgentsBackIsToldAsDrift() throws Exception {
        String id = h.newId();
        String container = running(id);
        h.cli("stop", "-t", "5", container);
        Lookup before = h.registry.get(id);
        Harness.Seen stopped = h.seen(container).orElseThrow();

        h.restartAgent(this::hear);

        assertEquals(List.of(id + " " + Reconciliations.Action.STATE_DRIFT), heard);
        assertEquals(before, h.registry.get(id), "the record is not changed (nor its generation)");
        assertEquals(InstanceState.RUNNING, h.requireRecord(id).state());
        assertEquals(stopped, h.seen(container).orElseThrow(), "the container is not started again");
    }

    /** The other way round: a container that runs while its record says it does not (the same comparison). */
    @Test
    void aCreatedInstanceWhoseContainerWasStartedBehindTheAgentsBackIsToldAsDrift() throws Exception {
        String id = h.newId();
        ok(h.ops.create(bytes(h.plan(id, h.source(id), Harness.port(), "one"))));
        String container = h.seen("dogama-" + id).orElseThrow().id();
        h.cli("start", container);
        Lookup before = h.registry.get(id);
        Harness.Seen started = h.seen(container).orElseThrow();
        assertTrue(started.running(), started::toString);

        h.restartAgent(this::hear);

        assertEquals(List.of(id + " " + Reconciliations.Action.STATE_DRIFT), heard);
        assertEquals(before, h.registry.get(id));
        assertEquals(started, h.seen(container).orElseThrow(), "the container is not stopped");
    }

    /** Pins Reconciler.drift's Missing case: {@code tell(..., CONTAINER_MISSING)}; nothing is made again. */
    @Test
    void aRegisteredContainerRemovedBehindTheAgentsBackIsToldAsMissing() throws Exception {
        String id = h.newId();
        String container = running(id);
        h.cli("rm", "-f", container);
        Lookup before = h.registry.get(id);

        h.restartAgent(this::hear);

        assertEquals(List.of(id + " " + Reconciliations.Action.CONTAINER_MISSING), heard);
        assertEquals(before, h.registry.get(id));
        assertEquals(List.of(), h.containersOf(id), "no container is made again at the start");
    }

    /**
     * Pins Reconciler.drift's Mismatch case: {@code tell(..., CONTAINER_NOT_OURS)}. No engine reuses a container ID,
     * so the record is rewritten through the registry (its own key, a valid MAC) to name the neighbour's container,
     * which carries another instance's name and labels; neither container nor either record is touched.
     */
    @Test
    void aRegisteredIdThatNamesAnotherInstancesContainerIsToldAsNotOurs() throws Exception {
        String id = h.newId();
        String neighbour = h.newId();
        String own = running(id);
        String theirs = running(neighbour);
        Lookup.Found found = assertInstanceOf(Lookup.Found.class, h.registry.get(id));
        assertInstanceOf(CasResult.Stored.class,
                h.registry.replace(found.generation(), found.record().withContainerId(Optional.of(theirs))));
        Lookup before = h.registry.get(id);
        Lookup neighbourBefore = h.registry.get(neighbour);
        Harness.Seen ownSeen = h.seen(own).orElseThrow();
        Harness.Seen theirsSeen = h.seen(theirs).orElseThrow();

        h.restartAgent(this::hear);

        assertEquals(List.of(id + " " + Reconciliations.Action.CONTAINER_NOT_OURS), heard);
        assertEquals(before, h.registry.get(id));
        assertEquals(neighbourBefore, h.registry.get(neighbour));
        assertEquals(ownSeen, h.seen(own).orElseThrow());
        assertEquals(theirsSeen, h.seen(theirs).orElseThrow());
    }

    /**
     * Pins Reconciler.run's Tampered case: {@code tell(t.instanceId(), RECORD_TAMPERED)}. The registry file is
     * damaged while the agent is down: one letter of the victim's plan in every copy the file holds (the greeting is
     * the victim's alone), so that its record's MAC fails and the neighbour's records stay whole. The victim's
     * container keeps running, untouched, and every request on it is {@code intervention_required}.
     */
    @Test
    void aRecordWhoseMacFailsIsToldAsTamperedAndNothingIsTouched() throws Exception {
        String victim = h.newId();
        String neighbour = h.newId();
        ok(h.ops.create(bytes(h.plan(victim, h.source(victim), Harness.port(), "victim"))));
        ok(h.ops.start(victim));
        // Written after the victim's records, so the damaged frames are not the file's last.
        ok(h.ops.create(bytes(h.plan(neighbour, h.source(neighbour), Harness.port(), "neighbour"))));
        Harness.Seen victimSeen = h.seen("dogama-" + victim).orElseThrow();
        Lookup neighbourBefore = h.registry.get(neighbour);

        h.registry.close(); // restartAgent closes it again, harmlessly; the file must not be open while it is changed
        // Every copy is changed, the current slots included; one slot that fails makes the whole record tampered.
        assertTrue(damage(h.dataDir.resolve("registry.dat"), "\"GREETING\":\"victim\"") >= 1,
                "the victim's plan was not found in the registry file");
        h.restartAgent(this::hear);

        assertEquals(List.of(victim + " " + Reconciliations.Action.RECORD_TAMPERED), heard);
        assertInstanceOf(Lookup.Tampered.class, h.registry.get(victim));
        assertEquals(neighbourBefore, h.registry.get(neighbour));
        assertEquals(victimSeen, h.seen(victimSeen.id()).orElseThrow(), "the victim's container was touched");
        failedWith(ProblemCode.INTERVENTION_REQUIRED, h.ops.stop(victim, 0));
        assertEquals(victimSeen, h.seen(victimSeen.id()).orElseThrow(), "a refused stop stopped it");
    }

    /**
     * Changes one letter in every occurrence of {@code text} (ISO-8859-1 keeps every byte as it is): the frame keeps
     * its length and key, so the registry opens and reads only that record as tampered.
     *
     * @return how many occurrences were changed
     */
    private static int damage(Path file, String text) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        int changed = 0;
        for (int at = s.indexOf(text); at >= 0; at = s.indexOf(text, at + text.length())) {
            int letter = at + text.length() - 2; // the greeting's last letter, before its closing quote
            bytes[letter] = (byte) Character.toUpperCase((char) bytes[letter]);
            changed++;
        }
        Files.write(file, bytes);
        return changed;
    }
}
