package io.dogama.agent.app;

import java.io.Serial;

/** Base exception of the {@code app} module; messages start with {@code "app: "}. */
public class AppException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public AppException(String message) {
        super("app: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public AppException(String message, Throwable cause) {
        super("app: " + message, cause);
    }
}
