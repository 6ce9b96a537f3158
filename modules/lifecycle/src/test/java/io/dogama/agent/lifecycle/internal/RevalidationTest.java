package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.FAIL;
import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.registry.InstanceRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC 8.3: bind sources are checked again before every start, and a replace starts two containers of its own: the
 * new one ({@code Replaces}, {@link Step#REPLACE_START_NEW}) and, when it rolls back, the old one again
 * ({@link Step#ROLLBACK_START_OLD}). Each revalidation is proved here by a folder above the source that turns
 * writable by others ({@code unsafe_ancestor}) after the replace's own validation passed and just before that start,
 * on the real engine. {@code BindSourceLayoutTest} covers the start and restart requests and a replace's own
 * validation, not these two starts inside a replace.
 */
class RevalidationTest {
    private static final String SAFE = "rwxr-xr-x";
    private static final String UNSAFE = "rwxrwxrwx";

    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.faults.current = Faults.NONE;
        h.close();
    }

    /** Replaces {@code id} with {@code plan} at revision 0 under {@code script}; {@code unsafe} is made safe again. */
    private Outcome<InstanceView> replaceUnder(Harness.Script script, Path unsafe, String id, String plan) {
        h.faults.current = script;
        try {
            return h.ops.replace(id, bytes(replaceBody(plan, 0)));
        } finally {
            h.faults.current = Faults.NONE;
            chmod(unsafe, SAFE);
        }
    }

    /** A folder directly below the allowed root, safe as made, to hold a bind source one level down. */
    private Path tenant(String name) throws IOException {
        Path d = Files.createDirectory(h.root.resolve(name));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(SAFE));
        return d;
    }

    /** Inside a step hook: an {@link Error}, so that the step machine does not take a failed chmod for the step's. */
    private static void chmod(Path dir, String mode) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
        } catch (IOException e) {
            throw new AssertionError("cannot chmod " + dir, e);
        }
    }

    /**
     * Pins Replaces' REPLACE_START_NEW: {@code mounts.revalidateMounts(...)} before {@code docker.startContainer}.
     * Without that line the engine starts the new container on the now unsafe source and the replace commits.
     */
    @Test
    void aReplacesNewContainerIsNeverStartedOnASourceWhoseAncestorTurnedUnsafe() throws Exception {
        String id = h.newId();
        int port = Harness.port();
        Path srcA = h.source("a");
        Path tenantB = tenant("tenant-b");
        Path srcB = h.source("tenant-b/b");
        String v1 = h.plan(id, srcA, port, "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        String oldId = h.seen("dogama-" + id).orElseThrow().id();

        // The new container as the rollback finds it, just before it removes it.
        AtomicReference<List<Harness.Seen>> newOnes = new AtomicReference<>();
        Harness.Script script = new Harness.Script()
                .on(Step.REPLACE_START_NEW, step -> chmod(tenantB, UNSAFE))
                .on(Step.ROLLBACK_REMOVE_NEW, step -> newOnes.set(h.containersOf(id).stream()
                        .filter(c -> !c.id().equals(oldId)).toList()));
        Outcome<InstanceView> answer = replaceUnder(script, tenantB, id, h.plan(id, srcB, port, "two"));

        failedWith(ProblemCode.PLAN_REJECTED, answer);
        // "mounts", not "plan.mounts": the start's check of the registered plan, not the replace's own validation.
        assertEquals(List.of(new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR)),
                ((Outcome.Failed<?>) answer).violations());
        assertTrue(script.reached(Step.ROLLBACK_REMOVE_NEW), script.reached::toString);
        List<Harness.Seen> fresh = newOnes.get();
        assertEquals(1, fresh.size(), () -> "the replace's new container: " + fresh);
        assertEquals("created", fresh.getFirst().status(), "the new container was started: " + fresh.getFirst());

        InstanceRecord r = h.assertEnd(id, Harness.End.SETTLED).orElseThrow();
        assertEquals(InstanceState.RUNNING, r.state());
        assertEquals(0, r.revision());
        assertEquals(Harness.digest(v1), r.planDigest());
        assertEquals(Optional.of(oldId), r.containerId(), "the old container is back");
        h.assertKept(srcA, "a");
        h.assertKept(srcB, "tenant-b/b");
    }

    /**
     * Pins Replaces.startOld: {@code mounts.revalidateMounts(np.canonicalPlan(), ...)} before the old container is
     * started again. The rollback cannot bring the old instance back safely, so it gives up: every container
     * stopped, {@code INTERVENTION_REQUIRED}. Without that line the old container runs again on the unsafe source
     * and the rollback commits (the answer is then the injected fault's, the record RUNNING).
     */
    @Test
    void aRollbackNeverStartsTheOldContainerOnASourceWhoseAncestorTurnedUnsafe() throws Exception {
        String id = h.newId();
        int port = Harness.port();
        Path tenantA = tenant("tenant-a");
        Path srcA = h.source("tenant-a/a");
        Path srcB = h.source("b");
        String v1 = h.plan(id, srcA, port, "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        String oldId = h.seen("dogama-" + id).orElseThrow().id();

        Harness.Script script = new Harness.Script()
                .on(Step.REPLACE_START_NEW, FAIL)
                .on(Step.ROLLBACK_START_OLD, step -> chmod(tenantA, UNSAFE));
        Outcome<InstanceView> answer = replaceUnder(script, tenantA, id, h.plan(id, srcB, port, "two"));

        failedWith(ProblemCode.INTERVENTION_REQUIRED, answer);
        assertTrue(script.reached(Step.ROLLBACK_START_OLD), script.reached::toString);
        InstanceRecord r = h.assertEnd(id, Harness.End.INTERVENTION).orElseThrow();
        assertEquals(Optional.of(oldId), r.prior().flatMap(InstanceRecord.Prior::containerId),
                "the old container stays recorded for the operator");
        Harness.Seen old = h.seen(oldId).orElseThrow(() -> new AssertionError("the old container was removed"));
        assertFalse(old.running(), "the old container was started again: " + old);
        h.assertKept(srcA, "tenant-a/a");
    }
}
