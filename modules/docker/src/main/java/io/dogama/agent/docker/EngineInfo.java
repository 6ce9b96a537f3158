package io.dogama.agent.docker;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@code GET /info} says that the agent checks against: where the engine keeps its containers, and how many
 * CPUs it gives them.
 *
 * @param dataRoot the engine's data root ({@code DockerRootDir}): every container's file system, volume and state
 *                 lies below it; an absolute, normal path of the engine's host
 * @param cpus     the engine's CPUs ({@code NCPU}): it refuses a container a CPU quota above them
 */
public record EngineInfo(Path dataRoot, int cpus) {
    /** Most CPUs taken from an engine's answer. */
    public static final int MAX_CPUS = 1 << 16;

    /** Rejects a null root and a CPU count outside 1 to {@link #MAX_CPUS}. */
    public EngineInfo {
        Objects.requireNonNull(dataRoot, "dataRoot");
        if (cpus < 1 || cpus > MAX_CPUS) {
            throw new IllegalArgumentException("docker: CPU count out of range");
        }
    }

    /** @return the largest CPU quota the engine takes, in the plan's unit (10^-9 CPUs) */
    public long maxNanoCpus() {
        return cpus * 1_000_000_000L;
    }
}
