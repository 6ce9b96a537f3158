package io.dogama.agent.lifecycle;

import io.dogama.agent.core.HostPort;
import java.util.Objects;

/**
 * Whether one binding is free; never who holds it.
 *
 * @param binding   the requested binding
 * @param available true if neither a registered instance nor Docker publishes it
 */
public record PortAvailability(HostPort binding, boolean available) {
    /** Rejects null. */
    public PortAvailability {
        Objects.requireNonNull(binding, "binding");
    }
}
