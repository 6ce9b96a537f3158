package io.dogama.agent.docker;

import java.util.Objects;

/**
 * A network as the engine reports it.
 *
 * @param id       network ID
 * @param name     network name
 * @param driver   driver, e.g. {@code bridge}
 * @param internal whether the network has no route outside the host
 */
public record NetworkInfo(String id, String name, String driver, boolean internal) {
    /** Rejects nulls. */
    public NetworkInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(driver, "driver");
    }
}
