package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A start's and a stop's answer, against the real engine: the container is inspected for the answer after the
 * engine acted and beside the registry's write of where the request leads (not after it), the answer waits for
 * both, and a failed write fails the request only once that inspect has ended.
 */
class AnswerInspectTest {
    private Harness h;
    private Watched engine;

    @BeforeEach
    void setUp() throws Exception {
        h = new Harness();
        engine = new Watched(h.docker);
    }

    @AfterEach
    void tearDown() throws Exception {
        engine.release.countDown();
        h.close();
    }

    @Test
    void aStartsAndAStopsAnswerInspectRunsBesideTheirRegistryWrite() throws Exception {
        String id = h.newId();
        ok(h.ops.create(bytes(h.plan(id, h.source("a"), Harness.port(), "hi"))));
        engine.release.countDown();
        Held registry = new Held(h.registry, engine);
        Operations ops = Agents.start(engine, registry, h.policy, Faults.NONE);

        InstanceView started = ok(ops.start(id));
        assertEquals("running", started.container().status(), "the answer shows the container after its start");
        assertEquals(InstanceState.RUNNING, started.summary().state());
        assertEquals(h.seen(id(id)).orElseThrow().startedAt().substring(0, 19),
                started.container().startedAt().orElseThrow().substring(0, 19), "the start time the engine reports");
        InstanceView stopped = ok(ops.stop(id, 1));
        assertEquals("exited", stopped.container().status(), "the answer shows the container after its stop");
        assertEquals(InstanceState.STOPPED, stopped.summary().state());
        // Without running beside it, each write would have waited in vain for an inspect that begins after it.
        assertEquals(List.of("RUNNING, its answer's inspect begun", "STOPPED, its answer's inspect begun"),
                registry.writes, "each write saw its answer's inspect begin");
        assertEquals(InstanceState.STOPPED, h.requireRecord(id).state());
    }

    @Test
    void aFailedWriteFailsTheStartOnlyOnceItsAnswersInspectEnded() throws Exception {
        String id = h.newId();
        ok(h.ops.create(bytes(h.plan(id, h.source("b"), Harness.port(), "hi"))));
        Held registry = new Held(h.registry, engine);
        registry.failRunning = true;
        Operations ops = Agents.start(engine, registry, h.policy, Faults.NONE);

        AtomicReference<Outcome<InstanceView>> outcome = new AtomicReference<>();
        Thread starting = Thread.ofVirtual().start(() -> outcome.set(ops.start(id)));
        assertTrue(registry.failed.await(Harness.STEP_WAIT_SECONDS, TimeUnit.SECONDS), "the write never failed");
        // The answer's inspect is held: without waiting for it, the failure would be answered while it runs.
        Harness.awaitEndOrSettle(starting, "the start neither ended nor waited for its answer's inspect");
        assertTrue(starting.isAlive(), "the failure was answered while the answer's inspect was still running");
        engine.release.countDown();
        starting.join(TimeUnit.SECONDS.toMillis(Harness.STEP_WAIT_SECONDS));
        assertFalse(starting.isAlive(), "the start did not end once its inspect did");
        Outcome.Failed<?> f = assertInstanceOf(Outcome.Failed.class, outcome.get());
        assertEquals(ProblemCode.INTERNAL_ERROR, f.code(), "the registry's failure, not the inspect's answer");
        assertEquals(InstanceState.CREATED, h.requireRecord(id).state(), "the record stays where it was");
        assertTrue(h.seen(id(id)).orElseThrow().running(), "the engine had acted: the record is one state behind");
    }

    private static String id(String instanceId) {
        return "dogama-" + instanceId;
    }

    /** The real engine; each start or stop arms {@link #answerInspect}, which the next inspect counts down. */
    private static final class Watched extends ForwardingEngine {
        volatile CountDownLatch answerInspect;
        /** Each inspect after a start or stop waits for it (bounded: {@link Harness#await}). */
        final CountDownLatch release = new CountDownLatch(1);

        Watched(DockerEngine real) {
            super(real);
        }

        @Override
        public void startContainer(String id) throws DockerException {
            real.startContainer(id);
            answerInspect = new CountDownLatch(1);
        }

        @Override
        public void stopContainer(String id, int timeoutSeconds) throws DockerException {
            real.stopContainer(id, timeoutSeconds);
            answerInspect = new CountDownLatch(1);
        }

        @Override
        public Optional<ContainerInfo> inspectContainer(String idOrName) throws DockerException {
            CountDownLatch after = answerInspect;
            if (after != null) {
                after.countDown();
                Harness.await(release);
            }
            return real.inspectContainer(idOrName);
        }
    }

    /** The real registry; a write after the engine acted waits (bounded) for the answer's inspect to begin. */
    private static final class Held extends ForwardingRegistry {
        private final Watched engine;
        final List<String> writes = new CopyOnWriteArrayList<>();
        volatile boolean failRunning;
        final CountDownLatch failed = new CountDownLatch(1);

        Held(Registry real, Watched engine) {
            super(real);
            this.engine = engine;
        }

        @Override
        public CasResult replace(long expectedGeneration, InstanceRecord next) throws RegistryException {
            CountDownLatch inspect = engine.answerInspect;
            if (inspect != null) {
                if (failRunning && next.state() == InstanceState.RUNNING) {
                    failed.countDown();
                    throw new RegistryException("test: the write of RUNNING fails");
                }
                try {
                    writes.add(next.state() + (inspect.await(Harness.STEP_WAIT_SECONDS, TimeUnit.SECONDS)
                            ? ", its answer's inspect begun" : ", its answer's inspect not begun"));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RegistryException("test: interrupted", e);
                }
            }
            return real.replace(expectedGeneration, next);
        }
    }
}
