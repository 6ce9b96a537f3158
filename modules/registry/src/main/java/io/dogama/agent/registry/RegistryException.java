package io.dogama.agent.registry;

import java.io.Serial;

/** Base exception of the {@code registry} module; messages start with {@code "registry: "}. */
public class RegistryException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public RegistryException(String message) {
        super("registry: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public RegistryException(String message, Throwable cause) {
        super("registry: " + message, cause);
    }
}
