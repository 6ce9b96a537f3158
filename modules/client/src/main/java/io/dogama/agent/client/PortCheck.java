package io.dogama.agent.client;

import java.util.Objects;

/**
 * One answer of {@link DogamaClient#checkPorts}: the binding as asked, and whether it is free. The agent
 * never says which container holds a port.
 *
 * @param binding   the binding asked about
 * @param available whether neither a registered instance nor a published port holds it
 */
public record PortCheck(PortBinding binding, boolean available) {
    /** @throws NullPointerException if the binding is null */
    public PortCheck {
        Objects.requireNonNull(binding, "binding");
    }
}
