package io.dogama.agent.client;

/**
 * The resource limits of a plan; all three are required by the agent.
 *
 * @param memoryBytes memory limit in bytes (also the swap limit)
 * @param nanoCpus    CPU limit in billionths of a CPU
 * @param pidsLimit   most processes in the container
 */
public record Resources(long memoryBytes, long nanoCpus, long pidsLimit) {
}
