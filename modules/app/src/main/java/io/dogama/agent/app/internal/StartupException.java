package io.dogama.agent.app.internal;

import io.dogama.agent.app.AppException;
import java.io.Serial;

/** The agent refuses to start; the message names the reason and never a secret. */
final class StartupException extends AppException {
    @Serial
    private static final long serialVersionUID = 1L;

    StartupException(String message, Throwable cause) {
        super("refusing to start: " + message, cause);
    }
}
