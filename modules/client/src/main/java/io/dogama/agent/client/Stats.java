package io.dogama.agent.client;

/**
 * One-shot resource figures of an instance's container ({@code GET /v1/instances/{id}/stats}).
 *
 * @param cpuPercent       CPU use since the previous sample, in percent of one CPU times CPUs
 * @param memoryBytes      memory in use
 * @param memoryLimitBytes memory limit
 * @param pids             processes
 * @param networkRxBytes   bytes received over all networks
 * @param networkTxBytes   bytes sent over all networks
 * @param blockReadBytes   bytes read from block devices
 * @param blockWriteBytes  bytes written to block devices
 */
public record Stats(double cpuPercent, long memoryBytes, long memoryLimitBytes, long pids, long networkRxBytes,
        long networkTxBytes, long blockReadBytes, long blockWriteBytes) {
}
