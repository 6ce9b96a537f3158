package io.dogama.agent.docker;

import java.io.Serial;

/** Base exception of the {@code docker} module; messages start with {@code "docker: "}. */
public class DockerException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public DockerException(String message) {
        super("docker: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public DockerException(String message, Throwable cause) {
        super("docker: " + message, cause);
    }
}
