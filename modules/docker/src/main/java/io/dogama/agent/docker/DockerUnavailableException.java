package io.dogama.agent.docker;

import java.io.Serial;

/** The engine cannot be used: the socket does not accept connections, the connection broke, the client is closed or saturated, or the engine's API version is unsupported. */
public final class DockerUnavailableException extends DockerException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** See {@link #lasting()}. */
    private final boolean lasting;

    /**
     * @param message what failed, from fixed text
     */
    public DockerUnavailableException(String message) {
        this(message, null, false);
    }

    /**
     * @param message what failed, from fixed text
     * @param cause   the underlying local failure
     */
    public DockerUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private DockerUnavailableException(String message, Throwable cause, boolean lasting) {
        super(message, cause);
        this.lasting = lasting;
    }

    /**
     * @param message what is wrong, from fixed text
     * @param cause   the underlying local failure, or null
     * @return a failure that waiting does not cure: the engine answers but speaks no API version this agent does,
     *         or the agent cannot make a Unix socket at all
     */
    public static DockerUnavailableException lasting(String message, Throwable cause) {
        return new DockerUnavailableException(message, cause, true);
    }

    /** @return true if the engine cannot be used by this agent until something is changed, however long it waits */
    public boolean lasting() {
        return lasting;
    }
}
