package io.dogama.agent.client;

import java.util.Objects;

/**
 * What a create answered.
 *
 * @param instance the instance
 * @param created  true for 201, this request created it; false for 200, it was registered already with the same
 *                 plan digest (SPEC section 2: the create is idempotent)
 */
public record Creation(Instance instance, boolean created) {
    /** @throws NullPointerException if the instance is null */
    public Creation {
        Objects.requireNonNull(instance, "instance");
    }
}
