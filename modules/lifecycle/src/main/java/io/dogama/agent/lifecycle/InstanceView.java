package io.dogama.agent.lifecycle;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code <instance>} of SPEC section 2. Never holds a container ID or a host path.
 *
 * @param summary   the registry-side facts
 * @param container what Docker says about the bound container
 */
public record InstanceView(InstanceSummary summary, ContainerView container) {
    /** Rejects nulls. */
    public InstanceView {
        Objects.requireNonNull(summary, "summary");
        Objects.requireNonNull(container, "container");
    }

    /**
     * @param status    Docker status ({@code created}, {@code running}, {@code exited}, ...) or {@code missing}
     * @param startedAt RFC 3339 start time, when known
     * @param exitCode  exit code, when exited
     */
    public record ContainerView(String status, Optional<String> startedAt, Optional<Integer> exitCode) {
        /** Rejects nulls. */
        public ContainerView {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(startedAt, "startedAt");
            Objects.requireNonNull(exitCode, "exitCode");
        }
    }
}
