package io.dogama.agent.docker;

import java.io.Serial;

/** The engine's answer broke HTTP/1.1 or JSON, or exceeded a size limit of {@link DockerLimits}; the connection was discarded. */
public final class DockerProtocolException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, from fixed text
     */
    public DockerProtocolException(String message) {
        super(message);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
