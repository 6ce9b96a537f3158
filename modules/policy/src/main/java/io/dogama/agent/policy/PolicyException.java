package io.dogama.agent.policy;

import java.io.Serial;

/** Base exception of the {@code policy} module; messages start with {@code "policy: "}. */
public class PolicyException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     */
    public PolicyException(String message) {
        super("policy: " + message);
    }

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public PolicyException(String message, Throwable cause) {
        super("policy: " + message, cause);
    }
}
