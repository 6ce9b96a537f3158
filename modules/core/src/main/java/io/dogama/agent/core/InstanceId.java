package io.dogama.agent.core;

/**
 * A syntactically valid instance ID (SPEC section 5).
 *
 * @param value the ID
 */
public record InstanceId(String value) {
    /**
     * Validates the ID.
     *
     * @throws IllegalArgumentException if the syntax is wrong (the message never echoes the input)
     */
    public InstanceId {
        if (!Ids.isId(value)) {
            throw new IllegalArgumentException("core: invalid instance id");
        }
    }

    /** @return the deterministic container name {@code dogama-<id>} */
    public String containerName() {
        return "dogama-" + value;
    }

    /**
     * @param revision the revision the container had before a replace
     * @return the name the prior container carries during a replace, {@code dogama-<id>-r<revision>}
     */
    public String priorContainerName(long revision) {
        return "dogama-" + priorNamesake(revision);
    }

    /**
     * SPEC 5 gives a replace's prior container the name of another instance's container: this one's.
     *
     * @param revision the revision the container had before a replace
     * @return {@code <id>-r<revision>}, the ID whose container is named {@link #priorContainerName(long)}; not
     *         always a valid instance ID (it may be too long, and then no instance has that name)
     */
    public String priorNamesake(long revision) {
        return value + "-r" + revision;
    }

    @Override
    public String toString() {
        return value;
    }
}
