package io.dogama.agent.lifecycle;

/**
 * One-shot container stats (SPEC section 2).
 *
 * @param cpuPercent       CPU usage in percent of one host
 * @param memoryBytes      memory in use
 * @param memoryLimitBytes memory limit
 * @param pids             processes
 * @param networkRxBytes   bytes received, all interfaces
 * @param networkTxBytes   bytes sent, all interfaces
 * @param blockReadBytes   block bytes read
 * @param blockWriteBytes  block bytes written
 */
public record Stats(double cpuPercent, long memoryBytes, long memoryLimitBytes, long pids, long networkRxBytes,
        long networkTxBytes, long blockReadBytes, long blockWriteBytes) {
}
