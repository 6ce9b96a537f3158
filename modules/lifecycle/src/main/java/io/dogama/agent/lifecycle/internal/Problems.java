package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.registry.RegistryFullException;

/** Maps failures to the problem codes a caller sees; engine and registry details stay in the log. */
final class Problems {
    private static final System.Logger LOG = System.getLogger(Problems.class.getName());

    private Problems() {
    }

    /**
     * @param failure any failure an operation step may raise
     * @return {@code docker_unavailable} for an engine that does not answer in time, answers with a
     *         server error or refuses a start for its own state, {@code busy} for
     *         a registry write the full data directory refused, the carried code for an {@link Abort},
     *         else {@code internal_error}
     */
    static ProblemCode code(Exception failure) {
        return switch (failure) {
            case Abort a -> a.code();
            case DockerUnavailableException e -> ProblemCode.DOCKER_UNAVAILABLE;
            case DockerTimeoutException e -> ProblemCode.DOCKER_UNAVAILABLE;
            // The engine itself failed (found in the soak: a dockerd shutting down answers a start with
            // 500): not the agent's error, and the request may be repeated once the engine is back.
            case DockerApiException e when e.status() >= 500 -> ProblemCode.DOCKER_UNAVAILABLE;
            // The engine refused a request that named only its own container (a start; the soak saw
            // a 400 from its network store after a restart): its state, not the agent's request.
            case DockerApiException e when e.aboutEngineState() -> ProblemCode.DOCKER_UNAVAILABLE;
            // the data directory is full: nothing was stored, the same request may succeed later
            case RegistryFullException e -> ProblemCode.BUSY;
            default -> ProblemCode.INTERNAL_ERROR;
        };
    }

    /**
     * @param failure the failure
     * @param <T>     expected value type
     * @return the outcome a caller gets for it
     */
    static <T> Outcome<T> outcome(Exception failure) {
        return failure instanceof Abort a ? a.outcome() : Outcome.failed(code(failure));
    }

    /**
     * Logs a failure without engine text: the docker and registry modules write their messages
     * from fixed text, so the message may go to DEBUG; INFO and above only get the kind.
     *
     * @param what       the operation and instance, e.g. {@code "replace mc-1"}
     * @param failure    the failure
     */
    static void log(String what, Exception failure) {
        if (failure instanceof Abort a) {
            LOG.log(System.Logger.Level.DEBUG, "lifecycle: {0}: {1}", what, a.code().code());
            return;
        }
        if (failure instanceof RuntimeException) {
            // Not an engine or registry failure: a bug, worth its stack trace (messages hold no engine text).
            LOG.log(System.Logger.Level.ERROR, "lifecycle: " + what + " failed unexpectedly", failure);
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "lifecycle: {0} failed: {1}", what, kind(failure));
        LOG.log(System.Logger.Level.DEBUG, "lifecycle: " + what + " failed", failure);
    }

    /** @return the failure's kind for an INFO+ log line */
    static String kind(Exception failure) {
        return failure instanceof DockerException ? "docker " + failure.getClass().getSimpleName()
                : failure.getClass().getSimpleName();
    }
}
