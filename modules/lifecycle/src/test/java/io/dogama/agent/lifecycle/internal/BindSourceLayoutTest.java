package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.failedWith;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.Rules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bind-mount race of issue 18 closed by layout, against the real engine: no source overlaps a
 * neighbour's, every folder above a source is writable only by root or the agent, at create and again
 * before every start, restart and replace; and Docker is given the resolved real path.
 */
class BindSourceLayoutTest {
    private Harness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
    }

    private static List<Violation> violations(Outcome<?> o) {
        failedWith(ProblemCode.PLAN_REJECTED, o);
        return ((Outcome.Failed<?>) o).violations();
    }

    @Test
    void aSourceOverlappingAnotherRegisteredInstanceIsRefusedAtCreateAndReplace() throws Exception {
        String a = h.newId();
        String b = h.newId();
        Path srcA = h.source("a");
        Path inside = Files.createDirectory(srcA.resolve("inside"));
        ok(h.ops.create(bytes(h.plan(a, srcA, Harness.port(), "one"))));
        for (Path p : List.of(srcA, inside)) {
            assertEquals(List.of(new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE)),
                    violations(h.ops.create(bytes(h.plan(b, p, Harness.port(), "one")))));
            h.assertEnd(b, Harness.End.ABSENT);
        }
        int portB = Harness.port();
        Path srcB = h.source("b");
        ok(h.ops.create(bytes(h.plan(b, srcB, portB, "one"))));
        assertEquals(List.of(new Violation("plan.mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE)),
                violations(h.ops.replace(b, bytes(replaceBody(h.plan(b, inside, portB, "two"), 0)))));
        assertEquals(Harness.digest(h.plan(b, srcB, portB, "one")), h.requireRecord(b).planDigest());
        // Its own sources never count against an instance's replace.
        ok(h.ops.replace(b, bytes(replaceBody(h.plan(b, srcB, portB, "two"), 0))));
        // Once a's registration ends, its folder is free.
        ok(h.ops.delete(a));
        ok(h.ops.replace(b, bytes(replaceBody(h.plan(b, inside, portB, "three"), 1))));
    }

    @Test
    void ofTwoOverlappingPlansValidatedBeforeEitherWasRegisteredOnlyTheFirstWrittenIsKept() throws Exception {
        String a = h.newId();
        String b = h.newId();
        String c = h.newId();
        Path srcA = h.source("a");
        Path inside = Files.createDirectory(srcA.resolve("inside"));
        Path srcC = h.source("c");
        int portC = Harness.port();
        ok(h.ops.create(bytes(h.plan(c, srcC, portC, "one"))));
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            for (boolean replace : List.of(false, true)) {
                // a create of a (or a replace of c) has passed its validation and waits at its first write,
                // while b is created from start to end with a source inside a's
                CountDownLatch waiting = new CountDownLatch(1);
                CountDownLatch bDone = new CountDownLatch(1);
                Step first = replace ? Step.REPLACE_PERSIST_INTENT : Step.CREATE_PERSIST_INTENT;
                h.faults.current = new Harness.Script().on(first, step -> {
                    waiting.countDown();
                    Harness.await(bDone);
                });
                Future<Outcome<?>> held = pool.submit(() -> replace
                        ? h.ops.replace(c, bytes(replaceBody(h.plan(c, srcA, portC, "two"), 0)))
                        : h.ops.create(bytes(h.plan(a, srcA, Harness.port(), "one"))));
                Harness.await(waiting);
                h.faults.current = Faults.NONE;
                ok(h.ops.create(bytes(h.plan(b, inside, Harness.port(), "one"))));
                bDone.countDown();
                String field = replace ? "plan.mounts[0].source" : "mounts[0].source";
                assertEquals(List.of(new Violation(field, Rules.SOURCE_OVERLAPS_INSTANCE)),
                        violations(held.get(Harness.STEP_WAIT_SECONDS, TimeUnit.SECONDS)));
                ok(h.ops.delete(b));
            }
            h.assertEnd(a, Harness.End.ABSENT);
            assertEquals(Harness.digest(h.plan(c, srcC, portC, "one")), h.requireRecord(c).planDigest());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aNeighboursSourceRedirectedOntoMineIsRefusedBeforeStart() throws Exception {
        String a = h.newId();
        String b = h.newId();
        Path dirA = Files.createDirectory(h.root.resolve("x"));
        Path srcA = Files.createDirectory(dirA.resolve("data"));
        Path srcB = h.source("y");
        ok(h.ops.create(bytes(h.plan(a, srcA, Harness.port(), "one"))));
        ok(h.ops.create(bytes(h.plan(b, srcB, Harness.port(), "one"))));
        // a's source now leads into b's: b's own mount is unchanged, only the overlap rule sees it.
        Files.delete(srcA);
        Files.createSymbolicLink(srcA, srcB);
        assertEquals(List.of(new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE)),
                violations(h.ops.start(b)));
        assertEquals("created", h.seen("dogama-" + b).orElseThrow().status(), "not started");
        Files.delete(srcA);
        Files.createDirectory(srcA);
        assertEquals("running", ok(h.ops.start(b)).container().status());
    }

    @Test
    void anUnsafeAncestorIsRefusedAtCreateAndBeforeEveryStartRestartAndReplace() throws Exception {
        String id = h.newId();
        int port = Harness.port();
        Path parent = Files.createDirectory(h.root.resolve("tenant"));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path src = Files.createDirectory(parent.resolve("data"));
        Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<Violation> unsafe = List.of(new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));

        Files.setAttribute(parent, "unix:uid", 1000);
        assertEquals(unsafe, violations(h.ops.create(bytes(h.plan(id, src, port, "one")))));
        h.assertEnd(id, Harness.End.ABSENT);
        Files.setAttribute(parent, "unix:uid", 0);
        ok(h.ops.create(bytes(h.plan(id, src, port, "one"))));

        // A folder above the source became writable by others: anyone could swap it for a link now.
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(unsafe, violations(h.ops.start(id)));
        assertEquals(unsafe, violations(h.ops.restart(id, 1)));
        assertEquals("created", h.seen("dogama-" + id).orElseThrow().status(), "neither started nor restarted");
        assertEquals(List.of(new Violation("plan.mounts[0].source", Rules.UNSAFE_ANCESTOR)),
                violations(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0)))));
        // The root itself counts too.
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(h.root, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertEquals(unsafe, violations(h.ops.start(id)));
        Files.setPosixFilePermissions(h.root, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertEquals("running", ok(h.ops.start(id)).container().status());
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(unsafe, violations(h.ops.restart(id, 1)));
        assertEquals(InstanceState.RUNNING, h.requireRecord(id).state(), "a refused restart changes nothing");
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxr-xr-x"));
        ok(h.ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0))));
    }

    @Test
    void dockerIsGivenTheResolvedRealPathNeverTheLink() throws Exception {
        String id = h.newId();
        Path real = h.source("real");
        Path link = Files.createSymbolicLink(h.root.resolve("current"), real);
        ok(h.ops.create(bytes(h.plan(id, link, Harness.port(), "one"))));
        assertEquals(real.toString(), h.cli("container", "inspect", "--format",
                "{{range .HostConfig.Mounts}}{{.Source}}{{end}}", "dogama-" + id).strip());
        assertEquals(real.toString(), h.cli("container", "inspect", "--format",
                "{{range .Mounts}}{{.Source}}{{end}}", "dogama-" + id).strip());
    }
}
