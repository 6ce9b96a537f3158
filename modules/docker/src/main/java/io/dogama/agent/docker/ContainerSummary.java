package io.dogama.agent.docker;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of a container list.
 *
 * @param id     container ID
 * @param names  names without the leading slash
 * @param labels labels: the five technical ones of SPEC 5 only, whichever are set (an image's author chooses every
 *                   other, as many as the engine takes, and none is read)
 * @param state  the engine's state word, e.g. {@code running}, {@code exited}
 */
public record ContainerSummary(String id, List<String> names, Map<String, String> labels, String state) {
    /** Copies the collections. */
    public ContainerSummary {
        Objects.requireNonNull(id, "id");
        names = List.copyOf(names);
        labels = Map.copyOf(labels);
        Objects.requireNonNull(state, "state");
    }
}
