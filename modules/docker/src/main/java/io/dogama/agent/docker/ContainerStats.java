package io.dogama.agent.docker;

/**
 * One-shot resource usage of a container, computed like the {@code docker stats} command.
 *
 * @param cpuPercent       CPU use in percent where 100 is one CPU fully busy (so up to
 *                         {@code 100 * online CPUs}), over the interval since the previous stats
 *                         call for the same container through the same client; {@code 0.0} on the
 *                         first call (a one-shot answer has no earlier sample of its own)
 * @param memoryBytes      memory in use, page cache excluded (usage minus inactive file pages)
 * @param memoryLimitBytes the memory limit the engine applies
 * @param pids             processes and threads
 * @param networkRxBytes   bytes received, all interfaces
 * @param networkTxBytes   bytes sent, all interfaces
 * @param blockReadBytes   bytes read from block devices
 * @param blockWriteBytes  bytes written to block devices
 */
public record ContainerStats(double cpuPercent, long memoryBytes, long memoryLimitBytes, long pids,
        long networkRxBytes, long networkTxBytes, long blockReadBytes, long blockWriteBytes) {
    /**
     * @throws IllegalArgumentException on a negative or non-finite value
     */
    public ContainerStats {
        if (!Double.isFinite(cpuPercent) || cpuPercent < 0 || memoryBytes < 0 || memoryLimitBytes < 0 || pids < 0
                || networkRxBytes < 0 || networkTxBytes < 0 || blockReadBytes < 0 || blockWriteBytes < 0) {
            throw new IllegalArgumentException("docker: stats must be finite and non-negative");
        }
    }
}
