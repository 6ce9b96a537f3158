package io.dogama.agent.client;

import java.util.Objects;

/**
 * A host binding to check with {@link DogamaClient#checkPorts}.
 *
 * @param hostIp   host address
 * @param hostPort host port
 * @param protocol tcp or udp
 */
public record PortBinding(String hostIp, int hostPort, Protocol protocol) {
    /** @throws NullPointerException if a component is null */
    public PortBinding {
        Objects.requireNonNull(hostIp, "hostIp");
        Objects.requireNonNull(protocol, "protocol");
    }
}
