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
    /** Whether the refused request carried nothing the agent composed beyond a container's ID. */
    private final boolean aboutEngineState;

    /**
     * @param message what failed, from fixed text; the status is appended
     * @param status  the HTTP status the engine answered
     */
    public DockerApiException(String message, int status) {
        this(message, status, false);
    }

    /**
     * @param message          what failed, from fixed text; the status is appended
     * @param status           the HTTP status the engine answered
     * @param aboutEngineState the request named only a container the engine holds (a start), so a
     *                         refusal is about that container's state inside the engine, not about
     *                         anything the agent composed
     */
    public DockerApiException(String message, int status, boolean aboutEngineState) {
        super(message + " (status " + status + ")");
        this.status = status;
        this.aboutEngineState = aboutEngineState;
    }

    /** @return the HTTP status the engine answered */
    public int status() {
        return status;
    }

    /**
     * @return true if the engine refused a request that named only one of its containers: the
     *         refusal comes from the engine's own state (for example its network store after a
     *         restart), never from a body, query or name of the agent's making
     */
    public boolean aboutEngineState() {
        return aboutEngineState;
    }
}
