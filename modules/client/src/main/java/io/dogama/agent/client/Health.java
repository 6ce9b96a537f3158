package io.dogama.agent.client;

import java.util.Objects;

/**
 * The answer of {@code GET /v1/health} when the agent reached the Docker engine.
 *
 * @param status always {@code ok}
 */
public record Health(String status) {
    /** @throws NullPointerException if the status is null */
    public Health {
        Objects.requireNonNull(status, "status");
    }
}
