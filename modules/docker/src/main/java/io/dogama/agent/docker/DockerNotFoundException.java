package io.dogama.agent.docker;

import java.io.Serial;

/** The engine answered 404: the container, image or network does not exist. */
public final class DockerNotFoundException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, from fixed text
     */
    public DockerNotFoundException(String message) {
        super(message);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
