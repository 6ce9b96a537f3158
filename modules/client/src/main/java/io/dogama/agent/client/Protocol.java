package io.dogama.agent.client;

import java.util.Locale;

/** The transport protocol of a port binding. */
public enum Protocol {
    /** {@code "tcp"} */
    TCP,
    /** {@code "udp"} */
    UDP;

    /** @return the wire form, {@code tcp} or {@code udp} */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param wire {@code tcp} or {@code udp}
     * @return the protocol
     * @throws IllegalArgumentException for anything else
     */
    public static Protocol fromWire(String wire) {
        return switch (wire) {
            case "tcp" -> TCP;
            case "udp" -> UDP;
            case null, default -> throw new IllegalArgumentException("client: protocol must be tcp or udp");
        };
    }
}
