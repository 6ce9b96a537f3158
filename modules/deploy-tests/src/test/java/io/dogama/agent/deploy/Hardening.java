package io.dogama.agent.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What SPEC section 13 and deploy/compose.yaml promise about the agent's own container, checked on
 * the engine's view (inspect) and on the kernel's view of the running process (/proc on the host).
 */
final class Hardening {
    private Hardening() {
    }

    record Expected(String user, long pidsLimit, String controlNetwork, Path socket, Path allowedRoot) {
    }

    static void assertHardened(InspectContainerResponse c, Expected want) {
        HostConfig h = c.getHostConfig();
        String name = c.getName();
        assertEquals(Boolean.FALSE, Boolean.TRUE.equals(h.getPrivileged()), name + ": privileged");
        assertEquals(Boolean.TRUE, h.getReadonlyRootfs(), name + ": root file system not read-only");
        // SPEC 13: nothing writable but the data directory (and the socket): not even a tmpfs.
        assertTrue(h.getTmpFs() == null || h.getTmpFs().isEmpty(), name + ": tmpfs " + h.getTmpFs());
        assertTrue(h.getCapDrop() != null && Arrays.asList(h.getCapDrop()).contains(Capability.ALL),
                name + ": CapDrop lacks ALL: " + Arrays.toString(h.getCapDrop()));
        assertTrue(h.getCapAdd() == null || h.getCapAdd().length == 0, name + ": CapAdd " + Arrays.toString(h.getCapAdd()));
        assertTrue(h.getSecurityOpts() != null && h.getSecurityOpts().contains("no-new-privileges:true"),
                name + ": SecurityOpt " + h.getSecurityOpts());
        assertEquals(want.pidsLimit(), h.getPidsLimit(), name + ": PidsLimit");

        String user = c.getConfig().getUser();
        assertEquals(want.user(), user, name + ": User");
        String[] ug = user.split(":");
        assertTrue(ug.length == 2 && ug[0].matches("[0-9]+") && ug[1].matches("[0-9]+"), name + ": User not numeric UID:GID");
        assertNotEquals("0", ug[0], name + ": runs as root");

        // No published port: none bound, none requested, none published on the fly.
        Ports bindings = h.getPortBindings();
        assertTrue(bindings == null || bindings.getBindings().isEmpty(), name + ": PortBindings " + bindings);
        assertFalse(Boolean.TRUE.equals(h.getPublishAllPorts()), name + ": PublishAllPorts");
        Ports published = c.getNetworkSettings().getPorts();
        assertTrue(published == null || published.getBindings().values().stream().allMatch(b -> b == null || b.length == 0),
                name + ": published ports " + (published == null ? null : published.getBindings()));

        // Attached to the control network only, and that network is internal.
        assertEquals(Set.of(want.controlNetwork()), c.getNetworkSettings().getNetworks().keySet(), name + ": networks");
        assertEquals(Boolean.TRUE, Engine.get().client.inspectNetworkCmd().withNetworkId(want.controlNetwork()).exec()
                .getInternal(), name + ": control network " + want.controlNetwork() + " is not internal");

        // The socket at the same path; the socket is the only host path outside the agent's own files
        // that is writable, apart from the allowed roots (checked by the caller's mount list).
        List<InspectContainerResponse.Mount> mounts = c.getMounts();
        assertTrue(mounts.stream().anyMatch(m -> m.getSource() != null && m.getSource().equals(want.socket().toString())
                        && m.getDestination().getPath().equals(want.socket().toString())),
                name + ": the Docker socket is not mounted at " + want.socket() + ": " + describe(mounts));
        assertTrue(mounts.stream().anyMatch(m -> m.getDestination().getPath().equals(Deployment.SECRET_TARGET)
                        && !Boolean.TRUE.equals(m.getRW())),
                name + ": no read-only secret at " + Deployment.SECRET_TARGET + ": " + describe(mounts));
        // The agent only reads below an allowed root (SPEC 13: read-only except its data directory).
        assertTrue(mounts.stream().anyMatch(m -> m.getDestination().getPath().equals(want.allowedRoot().toString())
                        && !Boolean.TRUE.equals(m.getRW())),
                name + ": the allowed root " + want.allowedRoot() + " is not mounted read-only: " + describe(mounts));
        assertTrue(mounts.stream().anyMatch(m -> m.getDestination().getPath().equals(Deployment.DATA_TARGET)
                        && m.getName() != null && !m.getName().isEmpty() && m.getDriver() != null),
                name + ": no data volume at " + Deployment.DATA_TARGET + ": " + describe(mounts));

        assertProcess(c.getState().getPidLong(), name, ug);
    }

    /** The running process as the kernel sees it: IDs, capabilities, no_new_privs, read-only root. */
    private static void assertProcess(Long pid, String name, String[] ug) {
        assertTrue(pid != null && pid > 0, name + ": not running");
        Map<String, String> status;
        List<String> mountinfo;
        try {
            status = Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.contains(":\t"))
                    .collect(java.util.stream.Collectors.toMap(l -> l.substring(0, l.indexOf(':')),
                            l -> l.substring(l.indexOf(':') + 1).strip(), (a, b) -> a));
            mountinfo = Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo"));
        } catch (IOException e) {
            throw new AssertionError(name + ": cannot read /proc/" + pid + " (the tests run on the Docker host): " + e, e);
        }
        assertEquals(List.of(ug[0], ug[0], ug[0], ug[0]), List.of(status.get("Uid").split("\\s+")), name + ": Uid");
        assertEquals(List.of(ug[1], ug[1], ug[1], ug[1]), List.of(status.get("Gid").split("\\s+")), name + ": Gid");
        // Docker lists the primary group as the only supplementary one; nothing may be added.
        assertTrue(Set.of("", ug[1]).contains(status.getOrDefault("Groups", "")), name + ": supplementary groups "
                + status.get("Groups"));
        for (String set : List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) {
            assertEquals(0L, Long.parseUnsignedLong(status.get(set), 16), name + ": " + set + " " + status.get(set));
        }
        assertEquals("1", status.get("NoNewPrivs"), name + ": NoNewPrivs");
        assertNotEquals("0", status.get("Seccomp"), name + ": no seccomp filter");
        // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ...
        String root = mountinfo.stream().filter(l -> l.split(" ")[4].equals("/")).findFirst()
                .orElseThrow(() -> new AssertionError(name + ": no / in mountinfo"));
        assertTrue(List.of(root.split(" ")[5].split(",")).contains("ro"), name + ": / is not mounted read-only: " + root);
    }

    private static String describe(List<InspectContainerResponse.Mount> mounts) {
        return mounts.stream().map(m -> m.getSource() + "->" + m.getDestination() + (Boolean.TRUE.equals(m.getRW()) ? ":rw" : ":ro"))
                .toList().toString();
    }
}
