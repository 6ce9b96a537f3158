package io.dogama.agent.docker;

import java.util.Objects;

/**
 * What the engine reported about itself, and the API version this client speaks with it.
 *
 * @param version    the engine's version, e.g. {@code 20.10.24}
 * @param apiVersion the highest API version the engine offers, e.g. {@code 1.41}
 * @param negotiated the API version every request of this client uses, never below {@code 1.41}
 */
public record EngineVersion(String version, String apiVersion, String negotiated) {
    /** Rejects nulls. */
    public EngineVersion {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(negotiated, "negotiated");
    }
}
