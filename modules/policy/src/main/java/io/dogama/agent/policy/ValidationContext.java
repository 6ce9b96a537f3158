package io.dogama.agent.policy;

import io.dogama.agent.core.HostPort;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Engine and registry facts the validator needs for the port rules of SPEC section 8.4 and the
 * overlap rule of SPEC section 8.3 (1.1), supplied by the caller (this module never talks to Docker
 * or to the registry).
 *
 * @param dockerPublished    every host binding Docker currently publishes, EXCEPT those of the
 *                           instance's own registered current container (during a replace its own
 *                           bindings do not count); the caller filters by container ID
 * @param registeredBindings host bindings of the registered instances, by instance ID; the entry of
 *                           the plan's own instance, if any, is ignored
 * @param registeredSources  bind sources of the registered instances as their plans state them
 *                           (current and, mid-replace, prior plan), by instance ID; the entry of the
 *                           plan's own instance, if any, is ignored (during its replace its own
 *                           sources do not count)
 * @param engineNanoCpus     the largest CPU quota the engine takes (its CPUs), or {@link Long#MAX_VALUE} where the
 *                           plan's quota was checked against the engine already (a registration's recheck)
 */
public record ValidationContext(Set<HostPort> dockerPublished, Map<String, List<HostPort>> registeredBindings,
        Map<String, List<String>> registeredSources, long engineNanoCpus) {
    /** No published port and no other instance: for tests and for a first instance on an empty engine. */
    public static final ValidationContext EMPTY = new ValidationContext(Set.of(), Map.of(), Map.of());

    /** As the canonical constructor, without the engine's CPUs: no bound of its own on the CPU quota. */
    public ValidationContext(Set<HostPort> dockerPublished, Map<String, List<HostPort>> registeredBindings,
            Map<String, List<String>> registeredSources) {
        this(dockerPublished, registeredBindings, registeredSources, Long.MAX_VALUE);
    }

    /** Copies the collections. */
    public ValidationContext {
        if (engineNanoCpus < 1) {
            throw new IllegalArgumentException("policy: the engine's CPU quota bound must be positive");
        }
        dockerPublished = Set.copyOf(dockerPublished);
        registeredBindings = copy(Objects.requireNonNull(registeredBindings, "registeredBindings"));
        registeredSources = copy(Objects.requireNonNull(registeredSources, "registeredSources"));
    }

    private static <T> Map<String, List<T>> copy(Map<String, List<T>> m) {
        Map<String, List<T>> copy = new java.util.HashMap<>();
        m.forEach((id, values) -> copy.put(id, List.copyOf(values)));
        return Map.copyOf(copy);
    }
}
