package io.dogama.agent.docker;

import java.io.Serial;

/** The engine answered 409: a name is taken, or the object is in a state that forbids the operation. */
public final class DockerConflictException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, from fixed text
     */
    public DockerConflictException(String message) {
        super(message);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
