package io.dogama.agent.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A deployment plan as parsed from the wire (SPEC section 6): every field has the right JSON type,
 * nothing more. A {@code Plan} is not approved; only the policy module's validator decides that,
 * and only a {@link ContainerSpec} is ever sent to Docker.
 *
 * @param instanceId      requested instance ID (syntax not yet checked)
 * @param templateId      template ID (syntax not yet checked)
 * @param templateVersion template version (syntax not yet checked)
 * @param image           image reference
 * @param command         command, or empty when omitted (the template's applies)
 * @param entrypoint      entrypoint, or empty when omitted
 * @param capAdd          capabilities to add
 * @param env             environment variables
 * @param mounts          bind mounts
 * @param ports           port bindings
 * @param resources       resource limits
 * @param user            numeric {@code UID:GID}, or empty for the image's USER
 * @param labels          custom labels
 * @param networks        networks to join
 * @param planDigest      the digest the caller supplied, if any
 */
public record Plan(
        String instanceId,
        String templateId,
        String templateVersion,
        String image,
        Optional<List<String>> command,
        Optional<List<String>> entrypoint,
        List<String> capAdd,
        Map<String, String> env,
        List<Mount> mounts,
        List<Port> ports,
        Resources resources,
        Optional<String> user,
        Map<String, String> labels,
        List<String> networks,
        Optional<String> planDigest) {

    /** Copies every collection so that a plan never changes after it was parsed. */
    public Plan {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(templateId, "templateId");
        Objects.requireNonNull(templateVersion, "templateVersion");
        Objects.requireNonNull(image, "image");
        command = command.map(List::copyOf);
        entrypoint = entrypoint.map(List::copyOf);
        capAdd = List.copyOf(capAdd);
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        ports = List.copyOf(ports);
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(user, "user");
        labels = Map.copyOf(labels);
        networks = List.copyOf(networks);
        Objects.requireNonNull(planDigest, "planDigest");
    }

    /**
     * A requested bind mount.
     *
     * @param source   host path as sent
     * @param target   container path
     * @param readOnly read-only flag
     */
    public record Mount(String source, String target, boolean readOnly) {
        /** Rejects nulls. */
        public Mount {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(target, "target");
        }
    }

    /**
     * A requested port binding.
     *
     * @param name          the template's name for the port
     * @param containerPort container-side port
     * @param protocol      {@code tcp} or {@code udp} as sent
     * @param hostIp        host address
     * @param hostPort      host port
     */
    public record Port(String name, long containerPort, String protocol, String hostIp, long hostPort) {
        /** Rejects nulls. */
        public Port {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(protocol, "protocol");
            Objects.requireNonNull(hostIp, "hostIp");
        }
    }

    /**
     * Requested resource limits.
     *
     * @param memoryBytes memory limit (and memory+swap)
     * @param nanoCpus    CPU quota in 1e-9 CPUs
     * @param pidsLimit   maximum number of processes
     */
    public record Resources(long memoryBytes, long nanoCpus, long pidsLimit) {
    }
}
