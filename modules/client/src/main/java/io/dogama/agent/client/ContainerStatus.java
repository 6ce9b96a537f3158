package io.dogama.agent.client;

import java.util.Objects;
import java.util.Optional;

/**
 * What the engine says about an instance's container: {@code {"status","startedAt"?,"exitCode"?}}.
 *
 * @param status    Docker's status ({@code created}, {@code running}, {@code exited}, ...) or {@code missing}
 * @param startedAt RFC 3339 start time, or null when the agent did not send one
 * @param exitCode  last exit code, or null when the agent did not send one
 */
public record ContainerStatus(String status, String startedAt, Integer exitCode) {
    /** @throws NullPointerException if the status is null */
    public ContainerStatus {
        Objects.requireNonNull(status, "status");
    }

    /** @return the start time, if the agent sent one */
    public Optional<String> startedAtIfPresent() {
        return Optional.ofNullable(startedAt);
    }

    /** @return the exit code, if the agent sent one */
    public Optional<Integer> exitCodeIfPresent() {
        return Optional.ofNullable(exitCode);
    }
}
