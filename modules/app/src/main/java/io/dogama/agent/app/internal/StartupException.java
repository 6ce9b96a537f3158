package io.dogama.agent.app.internal;

import io.dogama.agent.app.AppException;
import java.io.Serial;

/** The agent refuses to start; the message names the reason and never a secret. */
final class StartupException extends AppException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** See {@link #passing()}. */
    private final boolean passing;
    /** The message without the start's wording. */
    private final String reason;

    StartupException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private StartupException(String message, Throwable cause, boolean passing) {
        super("refusing to start: " + message, cause);
        this.passing = passing;
        this.reason = message;
    }

    /**
     * @param message the reason
     * @param cause   the engine's failure
     * @return a start that failed because the engine did not answer: a restart may well work
     */
    static StartupException engineUnavailable(String message, Throwable cause) {
        return new StartupException(message, cause, true);
    }

    /**
     * @return true if what failed may pass by itself (the engine is not up yet, or restarting), so that a
     *         supervisor should start the agent again; false if the configuration or the host must be fixed first
     */
    boolean passing() {
        return passing;
    }

    /** @return the reason alone, for a command that reads the configuration without starting the agent */
    String reason() {
        return reason;
    }
}
