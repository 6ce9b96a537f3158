package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.DockerProtocolException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Computes {@link ContainerStats} from a stats answer the way the docker CLI does
 * ({@code calculateCPUPercentUnix}, {@code calculateMemUsageUnixNoCache}).
 *
 * <p>A one-shot answer carries no earlier CPU sample ({@code precpu_stats} is empty), so the CPU
 * share is computed against the sample the previous call for the same container returned; those
 * samples are kept in a small LRU map. An earlier sample the engine does supply wins.
 */
final class Stats {
    /** Containers whose last CPU sample is remembered. */
    static final int MAX_SAMPLES = 256;

    /**
     * One CPU sample.
     *
     * @param total  container CPU time, ns
     * @param system host CPU time, ns
     */
    record Sample(long total, long system) {
    }

    private final Map<String, Sample> last = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Sample> eldest) {
            return size() > MAX_SAMPLES;
        }
    };

    /**
     * @param id the container the agent asked about: the samples are kept under it, never under an ID the
     *           answer names (an engine that named a new, long ID in every answer filled the map with them)
     * @param t  the engine's answer
     * @throws DockerProtocolException if the answer names another container
     */
    ContainerStats compute(String id, Tree t) throws DockerProtocolException {
        String named = t.str("id", "");
        if (!named.isEmpty() && !named.equals(id)) {
            // Another container's sample would become this one's baseline.
            throw new DockerProtocolException("stats: the answer is about another container");
        }
        Tree cpu = t.objOrEmpty("cpu_stats");
        Tree pre = t.objOrEmpty("precpu_stats");
        Sample now = sample(cpu);
        Sample before = sample(pre);
        if (before.system() <= 0) {
            synchronized (last) {
                before = last.get(id);
            }
        }
        if (now.system() > 0) {
            synchronized (last) {
                last.put(id, now);
            }
        }
        long online = cpu.num("online_cpus", 0);
        if (online <= 0) {
            online = cpu.objOrEmpty("cpu_usage").length("percpu_usage");
        }
        double cpuPercent = cpuPercent(before, now, online);

        Tree mem = t.objOrEmpty("memory_stats");
        long usage = nonNegative(mem.num("usage", 0));
        Tree memStats = mem.objOrEmpty("stats");
        // cgroup v1 reports total_inactive_file, v2 inactive_file; the CLI subtracts either.
        long inactive = memStats.has("total_inactive_file") ? memStats.num("total_inactive_file", 0)
                : memStats.num("inactive_file", 0);
        long memory = inactive > 0 && inactive < usage ? usage - inactive : usage;
        long limit = nonNegative(mem.num("limit", 0));
        long pids = nonNegative(t.objOrEmpty("pids_stats").num("current", 0));

        long rx = 0;
        long tx = 0;
        for (Tree n : t.objectMap("networks").values()) {
            rx = saturatedAdd(rx, nonNegative(n.num("rx_bytes", 0)));
            tx = saturatedAdd(tx, nonNegative(n.num("tx_bytes", 0)));
        }
        long read = 0;
        long write = 0;
        for (Tree e : t.objOrEmpty("blkio_stats").objects("io_service_bytes_recursive")) {
            String op = e.str("op", "").toLowerCase(Locale.ROOT);
            long v = nonNegative(e.num("value", 0));
            if ("read".equals(op)) {
                read = saturatedAdd(read, v);
            } else if ("write".equals(op)) {
                write = saturatedAdd(write, v);
            }
        }
        return new ContainerStats(cpuPercent, memory, limit, pids, rx, tx, read, write);
    }

    static double cpuPercent(Sample before, Sample now, long onlineCpus) {
        if (before == null || onlineCpus <= 0) {
            return 0.0;
        }
        long cpuDelta = now.total() - before.total();
        long systemDelta = now.system() - before.system();
        if (cpuDelta <= 0 || systemDelta <= 0) {
            return 0.0;
        }
        return (double) cpuDelta / systemDelta * onlineCpus * 100.0;
    }

    private static Sample sample(Tree cpu) throws DockerProtocolException {
        return new Sample(cpu.objOrEmpty("cpu_usage").num("total_usage", 0), cpu.num("system_cpu_usage", 0));
    }

    private static long nonNegative(long v) {
        return Math.max(0, v);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }
}
