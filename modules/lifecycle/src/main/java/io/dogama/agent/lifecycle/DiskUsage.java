package io.dogama.agent.lifecycle;

import java.util.Objects;

/**
 * Capacity of one checked path, reported under the path as the caller sent it.
 *
 * @param path        the path as requested
 * @param totalBytes  file store size
 * @param usableBytes bytes available to the agent
 */
public record DiskUsage(String path, long totalBytes, long usableBytes) {
    /** Rejects null. */
    public DiskUsage {
        Objects.requireNonNull(path, "path");
    }
}
