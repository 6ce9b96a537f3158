package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.docker.DockerException;

/**
 * The fault-injection seam: called right before every {@link Step}. Production uses {@link #NONE};
 * tests in this package pass a scripted one that throws a {@link DockerException} (a simulated
 * engine failure: the operation's own error handling runs) or an {@link Error} (a simulated crash:
 * nothing in this module catches it, so no clean-up runs). Nothing exported reaches it.
 */
@FunctionalInterface
interface Faults {
    /** No faults. */
    Faults NONE = step -> { };

    /**
     * @param step the step about to act
     * @throws DockerException to simulate a failure of that step
     */
    void at(Step step) throws DockerException;
}
