package io.dogama.agent.http;

import java.io.Serial;

/** Base exception of the {@code http} module; messages start with {@code "http: "}. */
public class HttpException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public HttpException(String message, Throwable cause) {
        super("http: " + message, cause);
    }
}
