package io.dogama.agent.core;

import java.util.Optional;

/** Transport protocol of a port binding. */
public enum Protocol {
    /** TCP. */
    TCP,
    /** UDP. */
    UDP;

    /** @return the wire spelling, {@code tcp} or {@code udp} */
    public String wire() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Parses the wire spelling exactly (lower case only).
     *
     * @param s candidate
     * @return the protocol, or empty if {@code s} is not exactly {@code tcp} or {@code udp}
     */
    public static Optional<Protocol> parse(String s) {
        if ("tcp".equals(s)) {
            return Optional.of(TCP);
        }
        if ("udp".equals(s)) {
            return Optional.of(UDP);
        }
        return Optional.empty();
    }
}
