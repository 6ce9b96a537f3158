package io.dogama.agent.app.internal;

import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.docker.DockerCallObserver;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.metrics.Metrics;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The agent-wide metrics that no single module owns: Docker calls, engine availability, registry and
 * nonce memory fill, the audit log's state, and the JVM. (The HTTP surface registers its own.)
 */
final class Instruments {
    private static final Path OWN_FDS = Path.of("/proc/self/fd");
    private static final Path OWN_LIMITS = Path.of("/proc/self/limits");

    private Instruments() {
    }

    /** @return the observer that counts and times every engine call */
    static DockerCallObserver docker(Metrics metrics) {
        Metrics.Counter calls = metrics.counter("dogama_docker_calls_total",
                "Calls to the Docker engine, by operation (method and path shape) and outcome (ok, error, failed).",
                "operation", "outcome");
        Metrics.Histogram seconds = metrics.histogram("dogama_docker_call_duration_seconds",
                "Latency of calls to the Docker engine, by operation.", Metrics.LATENCY_BUCKETS, "operation");
        return (operation, outcome, nanos) -> {
            calls.inc(operation, outcome);
            seconds.observe(nanos / 1e9, operation);
        };
    }

    /**
     * @return the counter of the start-up reconciliation's actions and findings, and of a request's recovery of a
     *         record left unfinished, by action (its audit code)
     */
    static Metrics.Counter reconciliations(Metrics metrics) {
        return metrics.counter("dogama_reconcile_actions_total",
                "What this process's start-up reconciliation, or a request's recovery of a record an earlier request "
                        + "left unfinished, did or found, by action (the audit line's outcome).",
                "action");
    }

    /** Registers the gauges read at each scrape. */
    static void register(Metrics metrics, AtomicReference<AgentOperations> ops, Registry registry, NonceStore nonces,
            int nonceCapacity, AuditLog audit) {
        metrics.gauge("dogama_engine_available",
                "1 if the Docker engine answered a bounded ping at this scrape, else 0.", () -> {
                    AgentOperations o = ops.get();
                    return o != null && o.health(System.nanoTime()) instanceof Outcome.Ok<?> ? 1 : 0;
                });
        metrics.gauge("dogama_registry_records", "Records in the instance registry (tampered ones included).", () -> {
            try {
                return registry.all().size();
            } catch (RegistryException e) {
                throw new IllegalStateException("app: registry unreadable", e);
            }
        });
        metrics.gauge("dogama_registry_capacity", "Most records the registry holds (limits.instances).",
                registry::maxInstances);
        metrics.gauge("dogama_nonce_memory_entries", "Nonces remembered for replay defense.", nonces::size);
        metrics.gauge("dogama_nonce_memory_capacity", "Most nonces remembered; when full, requests get 503 busy.",
                () -> nonceCapacity);
        metrics.counter("dogama_nonce_memory_full_total",
                "Requests refused 503 busy because the nonce memory held its capacity.", nonces::refusedFull);
        metrics.counter("dogama_nonce_memory_stalled_total",
                "Requests refused 503 busy because their nonce was not on disk within the durable wait.",
                nonces::refusedStalled);
        metrics.gauge("dogama_audit_writable", "1 while the audit log can be written; 0 means mutations are refused.",
                () -> audit.writable() ? 1 : 0);
        metrics.counter("dogama_audit_lines_total", "Audit lines written since start.", audit::written);
        metrics.counter("dogama_audit_errors_total", "Failed writes or syncs of the audit log since start.",
                audit::errors);
        metrics.counter("dogama_audit_dropped_total",
                "Audit events not written because the writer's queue was full or the free space was below the reserve.", audit::dropped);
        metrics.counter("dogama_audit_suppressed_total",
                "Unauthenticated refusals not written because of the audit log's rate limit.", audit::suppressed);
        metrics.gauge("dogama_audit_last_sequence",
                "Sequence number of the last audit line: recorded outside the host, it shows a log cut short.",
                audit::lastSequence);
        metrics.gauge("dogama_audit_queue_depth", "Audit events waiting to be written.", audit::queued);
        jvm(metrics);
    }

    static void jvm(Metrics metrics) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        metrics.gauge("jvm_memory_heap_used_bytes", "Heap in use.", () -> memory.getHeapMemoryUsage().getUsed());
        metrics.gauge("jvm_memory_heap_committed_bytes", "Heap committed by the JVM.",
                () -> memory.getHeapMemoryUsage().getCommitted());
        metrics.gauge("jvm_memory_heap_max_bytes", "Largest heap the JVM may use.",
                () -> memory.getHeapMemoryUsage().getMax());
        metrics.gauge("jvm_threads_live", "Live threads.", threads::getThreadCount);
        metrics.gauge("dogama_process_open_fds", "Open file descriptors of the agent's process.", Instruments::openFds);
        metrics.gauge("dogama_process_max_fds", "Most file descriptors the process may open.", Instruments::maxFds);
    }

    private static double openFds() {
        try (Stream<Path> s = Files.list(OWN_FDS)) {
            return s.count();
        } catch (IOException e) {
            throw new IllegalStateException("app: " + OWN_FDS + " unreadable", e);
        }
    }

    private static double maxFds() {
        try {
            for (String line : Files.readAllLines(OWN_LIMITS)) {
                if (line.startsWith("Max open files")) {
                    String[] f = line.substring("Max open files".length()).trim().split("\\s+");
                    return "unlimited".equals(f[0]) ? Double.POSITIVE_INFINITY : Double.parseDouble(f[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("app: " + OWN_LIMITS + " unreadable", e);
        }
        throw new IllegalStateException("app: no open-file limit in " + OWN_LIMITS);
    }
}
