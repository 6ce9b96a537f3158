package io.dogama.agent.auth;

import java.io.Serial;

/** Base exception of the {@code auth} module; messages start with {@code "auth: "}. */
public class AuthException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public AuthException(String message) {
        super("auth: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public AuthException(String message, Throwable cause) {
        super("auth: " + message, cause);
    }
}
