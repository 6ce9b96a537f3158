package io.dogama.agent.docker;

import java.util.List;
import java.util.Objects;

/**
 * A local image.
 *
 * @param id          the image ID, {@code sha256:<hex>}
 * @param repoDigests the registry references by manifest digest, {@code name@sha256:<hex>}
 * @param user        the image config's {@code User} ({@code Config.User}), empty string when unset;
 *                    the policy refuses an image that may run as root when the plan names no user
 * @param volumes     the container paths the image config declares as volumes ({@code Config.Volumes}):
 *                    the engine makes an anonymous volume at each one no mount covers
 */
public record ImageInfo(String id, List<String> repoDigests, String user, List<String> volumes) {
    /** Copies the lists, rejects nulls. */
    public ImageInfo {
        Objects.requireNonNull(id, "id");
        repoDigests = List.copyOf(repoDigests);
        Objects.requireNonNull(user, "user");
        volumes = List.copyOf(volumes);
    }
}
