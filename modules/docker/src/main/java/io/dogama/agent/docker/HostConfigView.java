package io.dogama.agent.docker;

import io.dogama.agent.core.HostPort;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The host configuration fields of a container that the agent checks (SPEC section 8), as the
 * engine reports them. An unset list is empty, an unset number is 0, an unset flag is false.
 *
 * @param privileged     privileged mode
 * @param networkMode    network mode
 * @param capAdd         added capabilities
 * @param capDrop        dropped capabilities
 * @param securityOpt    security options
 * @param binds          legacy bind strings (never set by this module)
 * @param mounts         mounts as requested at create
 * @param tmpfs          tmpfs mounts: target to options
 * @param pidMode        PID namespace mode
 * @param ipcMode        IPC namespace mode
 * @param utsMode        UTS namespace mode
 * @param usernsMode     user namespace mode
 * @param cgroupnsMode   cgroup namespace mode
 * @param readonlyRootfs read-only root filesystem
 * @param memory         memory limit in bytes
 * @param memorySwap     memory plus swap limit in bytes
 * @param nanoCpus       CPU quota in billionths of a CPU
 * @param pidsLimit      process limit
 * @param init           whether the engine's init runs as PID 1
 * @param portBindings   published ports
 */
public record HostConfigView(
        boolean privileged,
        String networkMode,
        List<String> capAdd,
        List<String> capDrop,
        List<String> securityOpt,
        List<String> binds,
        List<MountView> mounts,
        Map<String, String> tmpfs,
        String pidMode,
        String ipcMode,
        String utsMode,
        String usernsMode,
        String cgroupnsMode,
        boolean readonlyRootfs,
        long memory,
        long memorySwap,
        long nanoCpus,
        long pidsLimit,
        boolean init,
        List<PortBindingView> portBindings) {

    /** Copies the collections, rejects nulls. */
    public HostConfigView {
        Objects.requireNonNull(networkMode, "networkMode");
        capAdd = List.copyOf(capAdd);
        capDrop = List.copyOf(capDrop);
        securityOpt = List.copyOf(securityOpt);
        binds = List.copyOf(binds);
        mounts = List.copyOf(mounts);
        tmpfs = Map.copyOf(tmpfs);
        Objects.requireNonNull(pidMode, "pidMode");
        Objects.requireNonNull(ipcMode, "ipcMode");
        Objects.requireNonNull(utsMode, "utsMode");
        Objects.requireNonNull(usernsMode, "usernsMode");
        Objects.requireNonNull(cgroupnsMode, "cgroupnsMode");
        portBindings = List.copyOf(portBindings);
    }

    /**
     * A mount as requested at create.
     *
     * @param type        mount type, e.g. {@code bind}
     * @param source      host path
     * @param target      container path
     * @param readOnly    read-only flag
     * @param propagation bind propagation, empty if unset
     */
    public record MountView(String type, String source, String target, boolean readOnly, String propagation) {
        /** Rejects nulls. */
        public MountView {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(propagation, "propagation");
        }
    }

    /**
     * A published port.
     *
     * @param containerPort container-side port
     * @param host          host address, port and protocol
     */
    public record PortBindingView(int containerPort, HostPort host) {
        /** Rejects a null host binding. */
        public PortBindingView {
            Objects.requireNonNull(host, "host");
        }
    }
}
