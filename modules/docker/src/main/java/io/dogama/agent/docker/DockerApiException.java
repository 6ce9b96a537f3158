package io.dogama.agent.docker;

import java.io.Serial;

/**
 * The engine answered with a status this module does not map to a more specific exception (for
 * example 400 or 500), or reported an error inside a pull progress stream (then the status is the
 * stream's own, usually 200). The engine's message is never carried.
 */
public final class DockerApiException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The HTTP status. */
    private final int status;

    /**
     * @param message what failed, from fixed text; the status is appended
     * @param status  the HTTP status the engine answered
     */
    public DockerApiException(String message, int status) {
        super(message + " (status " + status + ")");
        this.status = status;
    }

    /** @return the HTTP status the engine answered */
    public int status() {
        return status;
    }
}
