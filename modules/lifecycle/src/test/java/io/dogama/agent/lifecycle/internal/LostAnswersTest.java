package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static io.dogama.agent.lifecycle.internal.Harness.replaceBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.NetworkInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two engine faults in a row, against the real engine: FaultTest fails one step per run. A replace's create made the
 * new container but its answer was lost (a timeout: the step is silent, the rollback searches for what it may have
 * made); then the rollback's own look-up for it timed out too (a refused registry step: nothing is known of the new
 * container when the rollback stops everything and gives up). The search when it stops everything used the prior
 * plan's digest only (right for the rollback's own re-create), so the new container, never started, was left
 * holding the instance's name, ports and bind mount, named by no record; a later delete left it behind.
 */
class LostAnswersTest {
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
    void aReplaceWhoseCreateAnswerAndThenItsSearchAreLostLeavesNoContainerNoRecordNames() throws Exception {
        String id = h.newId();
        Path src = h.source("data");
        int port = Harness.port();
        String v1 = h.plan(id, src, port, "one");
        ok(h.ops.create(bytes(v1)));
        ok(h.ops.start(id));
        Lossy engine = new Lossy(h.docker);
        Operations ops = Agents.start(engine, h.registry, h.policy, Faults.NONE);
        engine.loseNextCreateAnswer.set(true);
        engine.failListings.set(1);

        Outcome<?> replaced = ops.replace(id, bytes(replaceBody(h.plan(id, src, port, "two"), 0)));
        assertInstanceOf(Outcome.Failed.class, replaced, "the replace fails");
        assertTrue(engine.createLost.get(), "the new container was made and its answer lost");
        assertEquals(0, engine.failListings.get(), "the rollback's search was refused");

        List<Harness.Seen> left = h.containersOf(id);
        assertEquals(1, left.size(), "only the old container is left, the new one made by the lost create is gone: "
                + left);
        assertEquals(Harness.digest(v1), left.get(0).digest(), "the one left is the old plan's");
        // The operator's way out works, and leaves nothing.
        h.restartAgent();
        ok(h.ops.delete(id));
        assertEquals(List.of(), h.containersOf(id), "a delete leaves no container of the instance");
    }

    /** The real engine, except that a create's answer, and listings, can be lost once. */
    private static final class Lossy extends ForwardingEngine {
        final AtomicBoolean loseNextCreateAnswer = new AtomicBoolean();
        final AtomicBoolean createLost = new AtomicBoolean();
        final AtomicInteger failListings = new AtomicInteger();

        Lossy(DockerEngine real) {
            super(real);
        }

        @Override
        public String createContainer(ContainerSpec spec, List<NetworkInfo> networks) throws DockerException {
            String made = real.createContainer(spec, networks);
            if (loseNextCreateAnswer.compareAndSet(true, false)) {
                createLost.set(true);
                throw new DockerTimeoutException("test: the create's answer was lost");
            }
            return made;
        }

        @Override
        public List<ContainerSummary> listContainersByLabel(String key, String value) throws DockerException {
            if (createLost.get() && failListings.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new DockerTimeoutException("test: the listing's answer was lost");
            }
            return real.listContainersByLabel(key, value);
        }
    }
}
