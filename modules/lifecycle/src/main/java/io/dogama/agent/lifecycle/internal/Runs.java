package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.RegistryException;
import java.util.Optional;

/**
 * StartInstance, StopInstance, RestartInstance (SPEC 10): the container is re-inspected by its
 * registered ID and its identity checked before anything is mutated; bind sources are re-validated
 * before a start or restart; the engine is asked first and then the request event is fired through
 * {@link Transitions}, which persists the state it leads to, so a failed call leaves the record
 * untouched. Starting a running or stopping a
 * stopped container is success without an engine call.
 */
final class Runs {
    private final DockerEngine docker;
    private final Identities ids;
    private final Mounts mounts;

    Runs(DockerEngine docker, Identities ids, Mounts mounts) {
        this.docker = docker;
        this.ids = ids;
        this.mounts = mounts;
    }

    InstanceView start(Tracked t) throws Abort, DockerException, RegistryException {
        Transitions.request(Optional.of(t.state()), Event.START);
        ContainerInfo c = ids.requireCurrent(t.record());
        if (c.state().running()) {
            return settleAndView(t, Event.START);
        }
        mounts.revalidateMounts(t.record().canonicalPlan(), c);
        return mutate(t, Event.START, () -> docker.startContainer(c.id()));
    }

    InstanceView stop(Tracked t, int timeoutSeconds) throws Abort, DockerException, RegistryException {
        checkTimeout(timeoutSeconds);
        Transitions.request(Optional.of(t.state()), Event.STOP);
        ContainerInfo c = ids.requireCurrent(t.record());
        if (!c.state().running()) {
            return settleAndView(t, Event.STOP);
        }
        return mutate(t, Event.STOP, () -> docker.stopContainer(c.id(), timeoutSeconds));
    }

    InstanceView restart(Tracked t, int timeoutSeconds) throws Abort, DockerException, RegistryException {
        checkTimeout(timeoutSeconds);
        Transitions.request(Optional.of(t.state()), Event.RESTART);
        ContainerInfo c = ids.requireCurrent(t.record());
        mounts.revalidateMounts(t.record().canonicalPlan(), c);
        return mutate(t, Event.RESTART, () -> docker.restartContainer(c.id(), timeoutSeconds));
    }

    /** The HTTP layer checks the range; checked again so that no other caller can pass a bad value. */
    private static void checkTimeout(int timeoutSeconds) throws Abort {
        if (timeoutSeconds < 0 || timeoutSeconds > DockerEngine.MAX_STOP_TIMEOUT_SECONDS) {
            throw new Abort(ProblemCode.MALFORMED_REQUEST);
        }
    }

    /**
     * The machine persists where the request leads (nothing when the record already says so), and the answer
     * shows the record as written and the container as inspected after the engine acted. That inspect runs beside
     * the registry's write, not after it: it reads the engine, the write goes to the agent's disk, and the write
     * changes only the record's state (its container ID and labels, which the inspect checks, stay as they were).
     * The answer waits for both. A failed write fails the request as before, once its inspect has ended.
     */
    private InstanceView settleAndView(Tracked t, Event request) throws Abort, DockerException, RegistryException {
        InstanceRecord before = t.record();
        EarlyCall<Identities.Identity> look = EarlyCall.start("dogama-answer-inspect",
                () -> ids.identify(before.containerId(), Identities.Expect.current(before)));
        try {
            Transitions.fire(t, r -> r, Optional.empty(), request);
        } catch (Abort | RegistryException | RuntimeException | Error e) {
            look.settle();
            throw e;
        }
        return Identities.view(t.record(), look.answer());
    }

    @FunctionalInterface
    private interface EngineCall {
        void run() throws DockerException;
    }

    /**
     * The engine acts first and the table's target is persisted only once it did: a failed engine
     * call leaves the record as it was, so no state is ever written back outside the table. A crash
     * (or a lost answer) after the engine acted leaves the record one state behind the container;
     * inspect reports the container's real status and the request may be repeated (idempotent).
     */
    private InstanceView mutate(Tracked t, Event request, EngineCall call)
            throws Abort, DockerException, RegistryException {
        call.run();
        return settleAndView(t, request);
    }
}
