package io.dogama.agent.client;

import java.util.Objects;

/**
 * A bind mount of a plan: {@code {"source","target","readOnly"}}.
 *
 * @param source   absolute host path below the allowed root the template names
 * @param target   container path the template declares
 * @param readOnly whether the container sees it read-only
 */
public record Mount(String source, String target, boolean readOnly) {
    /** @throws NullPointerException if a path is null */
    public Mount {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
    }
}
