package io.dogama.agent.policy;

import io.dogama.agent.core.HostPort;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Engine and registry facts the validator needs for the port rules of SPEC section 8.4, supplied by
 * the caller (this module never talks to Docker or to the registry).
 *
 * @param dockerPublished    every host binding Docker currently publishes, EXCEPT those of the
 *                           instance's own registered current container (during a replace its own
 *                           bindings do not count); the caller filters by container ID
 * @param registeredBindings host bindings of the registered instances, by instance ID; the entry of
 *                           the plan's own instance, if any, is ignored
 */
public record ValidationContext(Set<HostPort> dockerPublished, Map<String, List<HostPort>> registeredBindings) {
    /** No published port and no other instance: for tests and for a first instance on an empty engine. */
    public static final ValidationContext EMPTY = new ValidationContext(Set.of(), Map.of());

    /** Copies the collections. */
    public ValidationContext {
        dockerPublished = Set.copyOf(dockerPublished);
        Map<String, List<HostPort>> copy = new java.util.HashMap<>();
        Objects.requireNonNull(registeredBindings, "registeredBindings")
                .forEach((id, bindings) -> copy.put(id, List.copyOf(bindings)));
        registeredBindings = Map.copyOf(copy);
    }
}
