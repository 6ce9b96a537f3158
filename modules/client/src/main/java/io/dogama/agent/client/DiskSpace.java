package io.dogama.agent.client;

import java.util.Objects;

/**
 * One answer of {@link DogamaClient#checkDisk}.
 *
 * @param path        the path as asked (never the path the agent resolved)
 * @param totalBytes  size of its file system
 * @param usableBytes bytes the agent could write there
 */
public record DiskSpace(String path, long totalBytes, long usableBytes) {
    /** @throws NullPointerException if the path is null */
    public DiskSpace {
        Objects.requireNonNull(path, "path");
    }
}
