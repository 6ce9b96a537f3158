package io.dogama.agent.docker;

/**
 * Told about every call to the engine, for the agent's metrics. Called on the calling thread after
 * the answer was read (or the call failed); it must be quick and must not throw.
 */
@FunctionalInterface
public interface DockerCallObserver {
    /** Hears nothing. */
    DockerCallObserver NONE = (operation, outcome, nanos) -> {
    };

    /**
     * @param operation method and path shape, e.g. {@code POST /containers/{container}/start}: never an
     *                  ID, name or image reference
     * @param outcome   {@code ok} (status below 400), {@code error} (the engine answered 400 or above)
     *                  or {@code failed} (no complete answer: unavailable, timed out, malformed)
     * @param nanos     how long the call took
     */
    void observed(String operation, String outcome, long nanos);
}
