package io.dogama.agent.docker;

import java.io.Serial;

/** A connect, read or whole-request deadline of {@link DockerLimits} passed before the engine answered. */
public final class DockerTimeoutException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, from fixed text
     */
    public DockerTimeoutException(String message) {
        super(message);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
