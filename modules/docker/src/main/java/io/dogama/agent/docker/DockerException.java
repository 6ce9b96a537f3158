package io.dogama.agent.docker;

import java.io.Serial;

/**
 * Base exception of the {@code docker} module; messages start with {@code "docker: "}.
 *
 * <p>The hierarchy is closed so that a caller can map every failure exhaustively. A message is
 * always written by this module from fixed text: it never carries text the engine sent (its error
 * message, reason phrase or headers), so it may be logged, but it is still not meant for a remote
 * caller of the agent.
 */
public abstract sealed class DockerException extends Exception
        permits DockerNotFoundException, DockerConflictException, DockerUnavailableException,
        DockerTimeoutException, DockerProtocolException, DockerApiException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret nor engine-supplied text
     */
    protected DockerException(String message) {
        super("docker: " + message);
    }

    /**
     * @param message what failed, never a secret nor engine-supplied text
     * @param cause   the underlying local failure (an I/O error), never one carrying engine text
     */
    protected DockerException(String message, Throwable cause) {
        super("docker: " + message, cause);
    }
}
