package io.dogama.agent.policy;

import java.util.List;
import java.util.Objects;

/**
 * What the engine reports about the image the template's reference resolves to (pulled or local),
 * handed in by the caller because this module never talks to Docker.
 *
 * @param imageId     the image's local ID, {@code sha256:<hex>}
 * @param repoDigests the image's repo digests, {@code <repository>@sha256:<hex>}
 * @param user        the image config's {@code User}, empty string when unset
 * @param volumes     the container paths the image config declares as volumes ({@code VOLUME})
 */
public record ImageFacts(String imageId, List<String> repoDigests, String user, List<String> volumes) {
    /** Rejects nulls; copies the lists. */
    public ImageFacts {
        Objects.requireNonNull(imageId, "imageId");
        repoDigests = List.copyOf(repoDigests);
        Objects.requireNonNull(user, "user");
        volumes = List.copyOf(volumes);
    }
}
