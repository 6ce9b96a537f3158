package io.dogama.agent.lifecycle;

import java.io.Serial;

/** Base exception of the {@code lifecycle} module; messages start with {@code "lifecycle: "}. */
public class LifecycleException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public LifecycleException(String message) {
        super("lifecycle: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public LifecycleException(String message, Throwable cause) {
        super("lifecycle: " + message, cause);
    }
}
