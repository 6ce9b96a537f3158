package io.dogama.agent.audit;

import java.io.Serial;

/** Base exception of the {@code audit} module; messages start with {@code "audit: "} and never hold key bytes. */
public class AuditException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed
     */
    public AuditException(String message) {
        super("audit: " + message);
    }

    /**
     * @param message what failed
     * @param cause   the underlying failure
     */
    public AuditException(String message, Throwable cause) {
        super("audit: " + message, cause);
    }
}
