package io.dogama.agent.docker;

import java.io.Serial;

/** The engine cannot be used: the socket does not accept connections, the connection broke, the client is closed or saturated, or the engine's API version is unsupported. */
public final class DockerUnavailableException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, from fixed text
     */
    public DockerUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
