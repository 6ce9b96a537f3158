package io.dogama.agent.client;

import java.util.Objects;

/**
 * A published port of a plan: {@code {"name","containerPort","protocol","hostIp","hostPort"}}.
 *
 * @param name          the template's name of the port
 * @param containerPort container port the template declares
 * @param protocol      tcp or udp
 * @param hostIp        approved host address
 * @param hostPort      host port inside the administrator's range
 */
public record Port(String name, int containerPort, Protocol protocol, String hostIp, int hostPort) {
    /** @throws NullPointerException if a component is null */
    public Port {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(hostIp, "hostIp");
    }
}
