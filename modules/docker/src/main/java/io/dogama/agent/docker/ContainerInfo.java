package io.dogama.agent.docker;

import java.util.Map;
import java.util.Objects;

/**
 * The typed view of a container inspect: identity, labels, state and the host configuration the
 * agent checks before it mutates a container.
 *
 * @param id         container ID (64 hex digits)
 * @param name       name without the leading slash
 * @param image      the image ID it was created from, {@code sha256:<hex>}
 * @param labels     labels: the five technical ones of SPEC 5 only, whichever are set (an image's author chooses every
 *                   other, as many as the engine takes, and none is read)
 * @param state      run state
 * @param hostConfig the checked host configuration
 */
public record ContainerInfo(String id, String name, String image, Map<String, String> labels,
        ContainerState state, HostConfigView hostConfig) {
    /** Copies the labels. */
    public ContainerInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(image, "image");
        labels = Map.copyOf(labels);
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(hostConfig, "hostConfig");
    }
}
