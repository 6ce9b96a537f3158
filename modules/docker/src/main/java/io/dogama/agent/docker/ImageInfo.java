package io.dogama.agent.docker;

import java.util.List;
import java.util.Objects;

/**
 * A local image.
 *
 * @param id          the image ID, {@code sha256:<hex>}
 * @param repoDigests the registry references by manifest digest, {@code name@sha256:<hex>}
 */
public record ImageInfo(String id, List<String> repoDigests) {
    /** Copies the list. */
    public ImageInfo {
        Objects.requireNonNull(id, "id");
        repoDigests = List.copyOf(repoDigests);
    }
}
