package io.dogama.agent.policy;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Protocol;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * One immutable template version of the catalog (SPEC section 7): everything a plan may ask for is
 * pinned here. The record only checks its own shape (no nulls, immutable copies); the rules that a
 * template must obey to be admitted (allowlisted capabilities, bounded tmpfs, ...) are checked by
 * {@link Catalog} when it loads, so a {@code Template} obtained from a {@code Catalog} is always
 * admissible.
 *
 * @param id             template ID
 * @param version        template version
 * @param image          image reference the plan must name exactly, e.g. {@code dogama/demo-http:1}
 * @param imageId        pinned local image ID {@code sha256:<hex>}, if pinned that way
 * @param manifestDigest pinned registry manifest digest {@code sha256:<hex>}, if pinned that way; at
 *                       least one of the two is present
 * @param command        pinned command, or empty for the image default
 * @param entrypoint     pinned entrypoint, or empty for the image default
 * @param capAdd         capabilities added after dropping ALL, in order
 * @param env            accepted environment keys
 * @param mounts         bind-mount destinations by container path
 * @param ports          container ports by name
 * @param resources      bounds of the three required limits
 * @param readOnlyRootfs whether the root filesystem is read-only
 * @param tmpfs          tmpfs mounts by container path
 * @param networks       which approved networks the container may join
 * @param workingDir     working directory, or empty for the image's
 * @param stopSignal     stop signal, or empty for the image's
 * @param restartPolicy  restart policy
 */
public record Template(
        String id,
        String version,
        String image,
        Optional<String> imageId,
        Optional<String> manifestDigest,
        Optional<List<String>> command,
        Optional<List<String>> entrypoint,
        List<String> capAdd,
        Map<String, EnvRule> env,
        Map<String, MountRule> mounts,
        Map<String, PortRule> ports,
        ResourceBounds resources,
        boolean readOnlyRootfs,
        Map<String, TmpfsRule> tmpfs,
        NetworkRule networks,
        Optional<String> workingDir,
        Optional<String> stopSignal,
        ContainerSpec.RestartPolicy restartPolicy) {

    /**
     * Copies every collection (maps sorted by key, so iteration is deterministic).
     *
     * @throws NullPointerException     on a null component
     * @throws IllegalArgumentException if neither {@code imageId} nor {@code manifestDigest} is given
     */
    public Template {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(imageId, "imageId");
        Objects.requireNonNull(manifestDigest, "manifestDigest");
        if (imageId.isEmpty() && manifestDigest.isEmpty()) {
            throw new IllegalArgumentException("policy: a template pins an image ID or a manifest digest");
        }
        command = command.map(List::copyOf);
        entrypoint = entrypoint.map(List::copyOf);
        capAdd = List.copyOf(capAdd);
        env = sorted(env);
        mounts = sorted(mounts);
        ports = sorted(ports);
        Objects.requireNonNull(resources, "resources");
        tmpfs = sorted(tmpfs);
        Objects.requireNonNull(networks, "networks");
        Objects.requireNonNull(workingDir, "workingDir");
        Objects.requireNonNull(stopSignal, "stopSignal");
        Objects.requireNonNull(restartPolicy, "restartPolicy");
    }

    /** @return {@code <id>@<version>}, for log lines and error messages */
    public String key() {
        return id + "@" + version;
    }

    private static <V> Map<String, V> sorted(Map<String, V> m) {
        Map<String, V> copy = new TreeMap<>();
        m.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value")));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * An accepted environment key.
     *
     * @param pattern  the whole value must match it
     * @param required whether the plan must set the key
     */
    public record EnvRule(Pattern pattern, boolean required) {
        /** Rejects null. */
        public EnvRule {
            Objects.requireNonNull(pattern, "pattern");
        }

        /**
         * @param value a requested value
         * @return true if the whole value matches the pattern, within {@code BoundedMatch}'s bound on its work
         */
        public boolean accepts(String value) {
            return io.dogama.agent.policy.internal.BoundedMatch.matches(pattern, value);
        }

        // Pattern has identity equality; two rules with the same source are the same rule.
        @Override
        public boolean equals(Object o) {
            return o instanceof EnvRule r && r.required == required && r.pattern.pattern().equals(pattern.pattern())
                    && r.pattern.flags() == pattern.flags();
        }

        @Override
        public int hashCode() {
            return Objects.hash(pattern.pattern(), pattern.flags(), required);
        }
    }

    /**
     * A bind-mount destination.
     *
     * @param root     name of the administrator's allowed root the source must lie below
     * @param readOnly the read-only flag the plan must request
     */
    public record MountRule(String root, boolean readOnly) {
        /** Rejects null. */
        public MountRule {
            Objects.requireNonNull(root, "root");
        }
    }

    /**
     * A container port.
     *
     * @param containerPort 1..65535
     * @param protocol      protocol
     */
    public record PortRule(int containerPort, Protocol protocol) {
        /** Rejects null and out-of-range ports. */
        public PortRule {
            Objects.requireNonNull(protocol, "protocol");
            if (containerPort < 1 || containerPort > 65535) {
                throw new IllegalArgumentException("policy: container port out of range");
            }
        }
    }

    /**
     * Inclusive bounds of one limit.
     *
     * @param min smallest accepted value, positive
     * @param max largest accepted value, at least {@code min}
     */
    public record Bounds(long min, long max) {
        /** Requires {@code 0 < min <= max}. */
        public Bounds {
            if (min <= 0 || max < min) {
                throw new IllegalArgumentException("policy: bounds need 0 < min <= max");
            }
        }

        /**
         * @param value candidate
         * @return true if {@code min <= value <= max}
         */
        public boolean contains(long value) {
            return value >= min && value <= max;
        }
    }

    /**
     * Bounds of the three limits every plan must set.
     *
     * @param memoryBytes memory (and memory+swap)
     * @param nanoCpus    CPU quota
     * @param pidsLimit   process limit
     */
    public record ResourceBounds(Bounds memoryBytes, Bounds nanoCpus, Bounds pidsLimit) {
        /** Rejects nulls. */
        public ResourceBounds {
            Objects.requireNonNull(memoryBytes, "memoryBytes");
            Objects.requireNonNull(nanoCpus, "nanoCpus");
            Objects.requireNonNull(pidsLimit, "pidsLimit");
        }
    }

    /**
     * A tmpfs mount; it is always {@code noexec,nosuid,nodev}.
     *
     * @param sizeBytes size limit, positive
     */
    public record TmpfsRule(long sizeBytes) {
        /** Requires a positive size. */
        public TmpfsRule {
            if (sizeBytes <= 0) {
                throw new IllegalArgumentException("policy: tmpfs needs a positive size");
            }
        }
    }

    /**
     * The networks a container of this template may join; always also restricted to the
     * administrator's approved list.
     *
     * @param anyApproved true: any network the administrator approved
     * @param names       otherwise the only names allowed (non-empty); empty when {@code anyApproved}
     */
    public record NetworkRule(boolean anyApproved, Set<String> names) {
        /** Rule for "any network from the administrator's approved list". */
        public static final NetworkRule ANY_APPROVED = new NetworkRule(true, Set.of());

        /** Requires exactly one of the two forms. */
        public NetworkRule {
            names = Collections.unmodifiableSortedSet(new TreeSet<>(names));
            if (anyApproved == !names.isEmpty()) {
                throw new IllegalArgumentException("policy: either any approved network or a list of names");
            }
        }

        /**
         * @param network a network name already known to be approved by the administrator
         * @return true if the template allows it
         */
        public boolean permits(String network) {
            return anyApproved || names.contains(network);
        }
    }
}
