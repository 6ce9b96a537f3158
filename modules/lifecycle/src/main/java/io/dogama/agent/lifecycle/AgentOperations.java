package io.dogama.agent.lifecycle;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Outcome;
import java.util.List;
import java.util.function.Consumer;

/**
 * Everything the HTTP surface may ask of the agent (SPEC section 2), and nothing else: no generic
 * Docker request, no container ID, no list of all containers. Every method returns a typed
 * {@link Outcome}; expected failures are never exceptions. Plan bodies are passed as the raw bytes
 * received, so that the closed-schema parser (duplicate keys, unknown fields) sees exactly what the
 * caller sent.
 */
public interface AgentOperations {

    /**
     * @param arrivedNanos {@link System#nanoTime()} when the request reached the agent: the answer reflects
     *                     a ping to the engine that began at or after it
     * @return ok when the engine answers its bounded ping, else {@code docker_unavailable}
     */
    Outcome<Health> health(long arrivedNanos);

    /**
     * @param paths 1 to 16 absolute paths
     * @return capacities in request order, or {@code plan_rejected} (then no capacity at all)
     */
    Outcome<List<DiskUsage>> checkDisk(List<String> paths);

    /**
     * @param bindings 1 to 64 bindings
     * @return availability per binding in request order, never who holds a port
     */
    Outcome<List<PortAvailability>> checkPorts(List<HostPort> bindings);

    /** @return the registered instances sorted by instance ID */
    Outcome<List<InstanceSummary>> list();

    /**
     * @param planJson the raw plan body
     * @return the instance; {@link Created#existed()} tells an idempotent repeat
     */
    default Outcome<Created> create(byte[] planJson) {
        return create(planJson, id -> {
        });
    }

    /**
     * As {@link #create(byte[])}, telling {@code target} which instance the plan names as soon as it is parsed, so
     * that a refusal can be recorded against it (the HTTP layer never parses a plan itself).
     *
     * @param planJson the raw plan body
     * @param target   told the plan's instance ID, once, when the plan parses and the ID is well formed
     * @return the instance; {@link Created#existed()} tells an idempotent repeat
     */
    Outcome<Created> create(byte[] planJson, Consumer<String> target);

    /**
     * @param instanceId the instance in the path
     * @param bodyJson   the raw {@code {"plan":...,"expectedRevision":n}} body
     * @return the instance at revision n+1
     */
    Outcome<InstanceView> replace(String instanceId, byte[] bodyJson);

    /**
     * @param instanceId the instance in the path
     * @return the instance
     */
    Outcome<InstanceView> inspect(String instanceId);

    /**
     * @param instanceId the instance in the path
     * @return one-shot stats
     */
    Outcome<Stats> stats(String instanceId);

    /**
     * @param instanceId the instance in the path
     * @return the instance, running
     */
    Outcome<InstanceView> start(String instanceId);

    /**
     * @param instanceId     the instance in the path
     * @param timeoutSeconds 0..300
     * @return the instance, stopped
     */
    Outcome<InstanceView> stop(String instanceId, int timeoutSeconds);

    /**
     * @param instanceId     the instance in the path
     * @param timeoutSeconds 0..300
     * @return the instance, running
     */
    Outcome<InstanceView> restart(String instanceId, int timeoutSeconds);

    /**
     * Removes the container (force), keeps all host data, ends the registration.
     *
     * @param instanceId the instance in the path
     * @return {@link Deleted#INSTANCE} on success
     */
    Outcome<Deleted> delete(String instanceId);

    /** The engine answered. */
    enum Health {
        /** Ping answered OK. */
        OK
    }

    /** Marker for a completed delete. */
    enum Deleted {
        /** The registration is gone. */
        INSTANCE
    }
}
