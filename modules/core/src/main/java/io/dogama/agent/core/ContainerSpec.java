package io.dogama.agent.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The fully approved container, Docker-neutral: what the policy module decided Docker may be asked
 * for, and the only input the docker module turns into a create request. There is deliberately no
 * field for anything SPEC section 8 forbids (privileged mode, host namespaces, devices, sysctls,
 * binds, extra hosts, ...): the docker module writes the fixed baseline itself.
 *
 * @param name           the deterministic container name
 * @param image          the pinned image (local image ID {@code sha256:...})
 * @param command        command, or empty for the image default
 * @param entrypoint     entrypoint, or empty for the image default
 * @param env            environment, in order of keys
 * @param user           numeric {@code UID:GID}, or empty for the image's USER
 * @param workingDir     working directory from the template, or empty
 * @param labels         custom labels merged first, then the technical labels
 * @param capAdd         capabilities added after dropping ALL
 * @param mounts         validated bind mounts
 * @param tmpfs          tmpfs mounts from the template
 * @param ports          published ports
 * @param resources      limits; memory+swap equals memory
 * @param networks       approved networks; the first is the network mode
 * @param readOnlyRootfs whether the root filesystem is read-only
 * @param restartPolicy  restart policy from the template
 * @param stopSignal     stop signal from the template, or empty
 */
public record ContainerSpec(
        String name,
        String image,
        Optional<List<String>> command,
        Optional<List<String>> entrypoint,
        Map<String, String> env,
        Optional<String> user,
        Optional<String> workingDir,
        Map<String, String> labels,
        List<String> capAdd,
        List<BindMount> mounts,
        List<TmpfsMount> tmpfs,
        List<PublishedPort> ports,
        Limits resources,
        List<String> networks,
        boolean readOnlyRootfs,
        RestartPolicy restartPolicy,
        Optional<String> stopSignal) {

    /** Copies collections; requires at least one network. */
    public ContainerSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(image, "image");
        command = command.map(List::copyOf);
        entrypoint = entrypoint.map(List::copyOf);
        env = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(env));
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(workingDir, "workingDir");
        labels = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(labels));
        capAdd = List.copyOf(capAdd);
        mounts = List.copyOf(mounts);
        tmpfs = List.copyOf(tmpfs);
        ports = List.copyOf(ports);
        Objects.requireNonNull(resources, "resources");
        networks = List.copyOf(networks);
        if (networks.isEmpty()) {
            throw new IllegalArgumentException("core: a container needs an approved network");
        }
        Objects.requireNonNull(restartPolicy, "restartPolicy");
        Objects.requireNonNull(stopSignal, "stopSignal");
    }

    /**
     * A bind mount whose source was resolved and checked below an allowed root.
     *
     * @param source   canonical host path
     * @param target   container path
     * @param readOnly read-only flag
     */
    public record BindMount(String source, String target, boolean readOnly) {
        /** Rejects nulls. */
        public BindMount {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(target, "target");
        }
    }

    /**
     * A tmpfs mount; the docker module always adds {@code noexec,nosuid,nodev}.
     *
     * @param target    container path
     * @param sizeBytes size limit, positive
     */
    public record TmpfsMount(String target, long sizeBytes) {
        /** Requires a positive size. */
        public TmpfsMount {
            Objects.requireNonNull(target, "target");
            if (sizeBytes <= 0) {
                throw new IllegalArgumentException("core: tmpfs needs a positive size");
            }
        }
    }

    /**
     * A published port.
     *
     * @param containerPort container-side port
     * @param host          host-side binding
     */
    public record PublishedPort(int containerPort, HostPort host) {
        /** Requires a valid container port. */
        public PublishedPort {
            Objects.requireNonNull(host, "host");
            if (containerPort < 1 || containerPort > 65535) {
                throw new IllegalArgumentException("core: container port out of range");
            }
        }
    }

    /**
     * Resource limits, all positive.
     *
     * @param memoryBytes memory (and memory+swap) in bytes
     * @param nanoCpus    CPU quota
     * @param pidsLimit   process limit
     */
    public record Limits(long memoryBytes, long nanoCpus, long pidsLimit) {
        /** Requires positive values. */
        public Limits {
            if (memoryBytes <= 0 || nanoCpus <= 0 || pidsLimit <= 0) {
                throw new IllegalArgumentException("core: limits must be positive");
            }
        }
    }

    /**
     * Restart policy allowed by SPEC section 8.
     *
     * @param mode       the mode
     * @param maxRetries retries for {@link Mode#ON_FAILURE}, 1..10; 0 otherwise
     */
    public record RestartPolicy(Mode mode, int maxRetries) {
        /** The policy that never restarts. */
        public static final RestartPolicy NO = new RestartPolicy(Mode.NO, 0);

        /** Validates the retry bound. */
        public RestartPolicy {
            Objects.requireNonNull(mode, "mode");
            // Docker reads on-failure with 0 retries as "unlimited", so on-failure needs 1..10.
            boolean valid = mode == Mode.ON_FAILURE ? maxRetries >= 1 && maxRetries <= 10 : maxRetries == 0;
            if (!valid) {
                throw new IllegalArgumentException("core: invalid restart policy");
            }
        }

        /** Restart modes. */
        public enum Mode {
            /** Never restart. */
            NO,
            /** Restart unless stopped by the agent. */
            UNLESS_STOPPED,
            /** Restart on a non-zero exit, bounded. */
            ON_FAILURE
        }
    }
}
