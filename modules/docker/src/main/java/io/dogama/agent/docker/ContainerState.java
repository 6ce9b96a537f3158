package io.dogama.agent.docker;

import java.util.Objects;
import java.util.Optional;

/**
 * The run state of a container.
 *
 * @param status    the engine's state word: {@code created}, {@code running}, {@code paused},
 *                  {@code restarting}, {@code removing}, {@code exited} or {@code dead}
 * @param running   whether a process runs (also true while paused or restarting)
 * @param startedAt when it last started (RFC 3339), empty if it never started
 * @param exitCode  the last exit code, present only for {@code exited} and {@code dead}
 */
public record ContainerState(String status, boolean running, Optional<String> startedAt,
        Optional<Integer> exitCode) {
    /** Rejects nulls. */
    public ContainerState {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(exitCode, "exitCode");
    }
}
