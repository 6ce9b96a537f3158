package io.dogama.agent.core;

import java.util.Objects;

/**
 * A host-side port binding: address, port and protocol. Used for occupancy checks.
 *
 * @param hostIp   literal IP address, kept in its {@linkplain IpLiteral#canonical canonical form} (the engine's own
 *                 text of an address it publishes may be another spelling), or empty for the engine's unset address
 * @param hostPort 1..65535
 * @param protocol tcp or udp
 */
public record HostPort(String hostIp, int hostPort, Protocol protocol) {
    /** @throws IllegalArgumentException on a null address or protocol, or a port outside 1..65535 */
    public HostPort {
        Objects.requireNonNull(hostIp, "hostIp");
        Objects.requireNonNull(protocol, "protocol");
        hostIp = IpLiteral.canonical(hostIp).orElse(hostIp);
        if (hostPort < 1 || hostPort > 65535) {
            throw new IllegalArgumentException("core: host port out of range");
        }
    }

    /**
     * Tells whether two bindings would collide on the host: same port and protocol, and the same
     * address or either of them the wildcard ({@code 0.0.0.0} or {@code ::}).
     *
     * @param other another binding
     * @return true if both cannot be published at once
     */
    public boolean conflictsWith(HostPort other) {
        if (hostPort != other.hostPort || protocol != other.protocol) {
            return false;
        }
        return hostIp.equals(other.hostIp) || IpLiteral.isWildcard(hostIp) || IpLiteral.isWildcard(other.hostIp);
    }
}
