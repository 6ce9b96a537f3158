package io.dogama.agent.lifecycle;

import java.util.Objects;

/**
 * A create's result.
 *
 * @param instance the instance
 * @param existed  true when the same instance ID with the same plan digest already existed (200, not 201)
 */
public record Created(InstanceView instance, boolean existed) {
    /** Rejects null. */
    public Created {
        Objects.requireNonNull(instance, "instance");
    }
}
