package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.policy.AdminConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An allowed root and the agent's own files compared where they are, not where they are mounted: the agent in a
 * container (SPEC section 13) sees its config, secret and data volume as bind mounts of host folders at other
 * paths, and a plan's bind source is a host path. The mount tables are written as the kernel writes them, for
 * folders that exist in a temporary directory, so that the paths resolve as the agent resolves them.
 */
class MountTableTest {
    @TempDir
    Path tmp;

    private Path base;

    @BeforeEach
    void real() throws Exception {
        base = tmp.toRealPath();
        Files.createDirectories(base.resolve("etc"));
        Files.writeString(base.resolve("etc/config.json"), "{}");
        Files.createDirectories(base.resolve("instances"));
        Files.createDirectories(base.resolve("data"));
    }

    private MountTable table(String... mounts) {
        List<String> lines = new java.util.ArrayList<>(List.of(
                "20 1 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w"));
        int id = 21;
        for (String m : mounts) {
            lines.add((id++) + " 20 " + m.replace("$B", base.toString()));
        }
        return MountTable.parse(lines);
    }

    /** The compose layout: the config a bind of a host file below the host folder the allowed root is. */
    @Test
    void aRootAroundTheHostFolderOfTheConfigIsRefusedWhereverEachIsMounted() {
        MountTable t = table(
                "8:1 /srv/dogama/conf/agent.json $B/etc/config.json ro,relatime - ext4 /dev/sda1 rw",
                "8:1 /srv/dogama $B/instances ro,relatime - ext4 /dev/sda1 rw",
                "8:1 /var/lib/docker/volumes/p_data/_data $B/data rw,relatime - ext4 /dev/sda1 rw");
        StartupException e = assertThrows(StartupException.class, () -> t.requireApart(
                Map.of("instances", base.resolve("instances")), Map.of("config file", base.resolve("etc/config.json"))));
        assertTrue(e.getMessage().contains("/srv/dogama and /srv/dogama/conf/agent.json"), e.getMessage());
        // The data volume's folder inside a root: refused too; a root inside it as well.
        assertThrows(StartupException.class, () -> table(
                "8:1 /var/lib/docker $B/instances ro - ext4 /dev/sda1 rw",
                "8:1 /var/lib/docker/volumes/p_data/_data $B/data rw - ext4 /dev/sda1 rw").requireApart(
                Map.of("instances", base.resolve("instances")), Map.of("data directory", base.resolve("data/sub"))));
        assertThrows(StartupException.class, () -> table(
                "8:1 /var/lib/docker/volumes/p_data/_data/x $B/instances ro - ext4 /dev/sda1 rw",
                "8:1 /var/lib/docker/volumes/p_data/_data $B/data rw - ext4 /dev/sda1 rw").requireApart(
                Map.of("instances", base.resolve("instances")), Map.of("data directory", base.resolve("data"))));
    }

    /**
     * The metrics file is the agent's too: it is replaced by a rename in its folder, and a container given that
     * host folder (or one around it) as a bind source could race the rename. It was left out of the comparison.
     */
    @Test
    void theMetricsFileIsComparedWhereverItIsMounted() throws Exception {
        Files.createDirectories(base.resolve("metrics"));
        Path metrics = base.resolve("metrics/dogama.prom");
        AdminConfig config = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), base.resolve("run/docker.sock"),
                base.resolve("etc/secret"), base.resolve("data"), Map.of("instances", base.resolve("instances")),
                Map.of("instances", base.resolve("instances")), List.of("dogama-net"), List.of("127.0.0.1"),
                new AdminConfig.PortRange(20000, 30000), new AdminConfig.Limits(1L << 30, 1_000_000_000L, 64, 10),
                false, List.of(), Optional.of(metrics),
                new AdminConfig.Audit(base.resolve("data/audit"), AdminConfig.DEFAULT_AUDIT_MAX_FILE_BYTES));
        Map<String, Path> own = AgentProcess.everythingOwn(config, Map.of("config file", base.resolve("etc/config.json")));
        assertEquals(metrics, own.get("metrics file"));
        MountTable t = table(
                "8:1 /srv/dogama $B/instances rw - ext4 /dev/sda1 rw",
                "8:1 /srv/dogama/shared/textfile $B/metrics rw - ext4 /dev/sda1 rw");
        StartupException e = assertThrows(StartupException.class, () -> t.requireApart(config.allowedRoots(), own));
        assertTrue(e.getMessage().contains("metrics file"), e.getMessage());
        assertDoesNotThrow(() -> table("8:1 /srv/dogama $B/instances rw - ext4 /dev/sda1 rw",
                "8:1 /var/lib/node_exporter/textfile $B/metrics rw - ext4 /dev/sda1 rw").requireApart(
                config.allowedRoots(), own));
    }

    /**
     * A root with another file system mounted below it exposes that one too (the engine binds recursively): the
     * engine's data root on its own disk below the allowed root holds the data volume.
     */
    @Test
    void aFileSystemMountedBelowARootIsPartOfIt() {
        MountTable t = table(
                "8:1 /srv $B/instances ro - ext4 /dev/sda1 rw",
                "8:2 / $B/instances/docker rw - ext4 /dev/sdb1 rw",
                "8:2 /volumes/p_data/_data $B/data rw - ext4 /dev/sdb1 rw");
        assertThrows(StartupException.class, () -> t.requireApart(Map.of("instances", base.resolve("instances")),
                Map.of("data directory", base.resolve("data"))));
    }

    /**
     * The engine's data root, wherever each is mounted (a helper's review of session 39's first check, which compared
     * paths only): a root that is a bind of it; a root that a folder of it was moved to by a link; and, where the
     * data root is not visible (the agent in a container), a root that is a bind of a folder in it on the host.
     */
    @Test
    void aRootThatReachesTheEnginesDataRootIsRefusedWhereverEachIsMounted() throws Exception {
        Path dataRoot = Files.createDirectories(base.resolve("engine/data"));
        Path big = Files.createDirectories(base.resolve("big/volumes"));
        String what = "Docker engine's data root";
        // A bind of the data root itself onto the root.
        StartupException bound = assertThrows(StartupException.class, () -> table(
                "8:1 /disk/engine $B/engine rw,relatime - ext4 /dev/sda1 rw",
                "8:1 /disk/engine/data $B/instances rw,relatime - ext4 /dev/sda1 rw")
                .requireApartFromEngine(Map.of("instances", base.resolve("instances")), dataRoot, what));
        assertTrue(bound.getMessage().contains("reach other containers' files"), bound.getMessage());
        // A folder of the data root that is a link to a bigger disk, which is the root.
        Files.createSymbolicLink(dataRoot.resolve("volumes"), big);
        MountTable plain = table();
        assertThrows(StartupException.class, () -> plain.requireApartFromEngine(Map.of("big", big), dataRoot, what));
        assertDoesNotThrow(() -> plain.requireApartFromEngine(Map.of("instances", base.resolve("instances")),
                dataRoot, what));
        // Not visible here: the root is, on the host, a named volume's folder in the data root.
        Path hostRoot = Path.of("/nonexistent-dogama/docker");
        StartupException hidden = assertThrows(StartupException.class, () -> table(
                "8:1 /nonexistent-dogama/docker/volumes/games/_data $B/instances rw,relatime - ext4 /dev/sda1 rw")
                .requireApartFromEngine(Map.of("instances", base.resolve("instances")), hostRoot, what));
        assertTrue(hidden.getMessage().contains("exposes the folder /nonexistent-dogama/docker/volumes/games/_data"),
                hidden.getMessage());
        // A root that exposes the top of another file system tells nothing of the host path: it passes.
        assertDoesNotThrow(() -> table("8:2 / $B/instances rw,relatime - ext4 /dev/sdb1 rw")
                .requireApartFromEngine(Map.of("instances", base.resolve("instances")), hostRoot, what));
    }

    /**
     * In a container that is not given the data root, the engine's own binds of the container's hostname, hosts and
     * resolv.conf place it exactly, on whatever disk (a helper's review: the host path alone misses a data root on a
     * disk of its own, as CIS recommends). A file system the engine mounted below the data root refuses a root inside
     * it, not one it lies inside (a volume bound to a folder of the root is the administrator's choice). And an agent
     * that may not enter the data root (0710, the agent not root on the host) places what is mounted below it from
     * the table's lines alone, without resolving them.
     */
    @Test
    void theEnginesOwnFilesPlaceAHiddenDataRootAndItsMountsArePlacedUnresolved() throws Exception {
        String what = "Docker engine's data root";
        Path hostRoot = Path.of("/nonexistent-dogama/docker");
        String id = "a".repeat(64);
        String engineFiles = "8:17 /containers/" + id + "/hostname /etc/hostname rw - ext4 /dev/sdb1 rw";
        StartupException e = assertThrows(StartupException.class, () -> table(engineFiles,
                "8:17 /volumes/games/_data $B/instances rw,relatime - ext4 /dev/sdb1 rw")
                .requireApartFromEngine(Map.of("instances", base.resolve("instances")), hostRoot, what));
        assertTrue(e.getMessage().contains("(from the engine's /etc/hostname)"), e.getMessage());
        assertDoesNotThrow(() -> table(engineFiles, "8:18 /games $B/instances rw - ext4 /dev/sdc1 rw")
                .requireApartFromEngine(Map.of("instances", base.resolve("instances")), hostRoot, what));
        // Below a data root this process may not enter: a volumes disk of its own, and a volume bound into the root.
        Path closed = Files.createDirectories(base.resolve("closed/docker"));
        Files.setPosixFilePermissions(closed.getParent(), java.nio.file.attribute.PosixFilePermissions.fromString("---------"));
        try {
            MountTable t = table("8:1 " + base + "/instances $B/instances rw - ext4 /dev/sda1 rw",
                    "8:3 / " + closed + "/volumes rw - ext4 /dev/sdd1 rw",
                    "8:1 " + base + "/instances/shared " + closed + "/volumes2 rw - ext4 /dev/sda1 rw",
                    "8:3 /games $B/data rw - ext4 /dev/sdd1 rw");
            assertThrows(StartupException.class, () -> t.requireApartFromEngine(Map.of("data", base.resolve("data")),
                    closed, what));
            assertDoesNotThrow(() -> t.requireApartFromEngine(Map.of("instances", base.resolve("instances")), closed,
                    what));
        } finally {
            Files.setPosixFilePermissions(closed.getParent(),
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }

    /** Sibling folders of one file system, and the same folder names on two file systems, are apart. */
    @Test
    void siblingsAndOtherFileSystemsPass() {
        MountTable t = table(
                "8:1 /srv/dogama/conf/agent.json $B/etc/config.json ro - ext4 /dev/sda1 rw",
                "8:1 /srv/dogama/instances $B/instances ro - ext4 /dev/sda1 rw",
                "8:17 /srv/dogama $B/data rw - ext4 /dev/sdb1 rw");
        assertDoesNotThrow(() -> t.requireApart(Map.of("instances", base.resolve("instances")),
                Map.of("config file", base.resolve("etc/config.json"), "data directory", base.resolve("data"))));
    }

    /** The mount on top wins, and a path below a mount point lies below the mounted folder. */
    @Test
    void aPathLiesBelowTheFolderItsMountMounts() {
        MountTable t = table(
                "8:1 /a $B/instances rw - ext4 /dev/sda1 rw",
                "8:2 /b $B/instances rw - ext4 /dev/sda2 rw",
                // a network namespace the engine keeps mounted: not a folder, not a place
                "0:4 net:[4026532284] /run/docker/netns/0a1b2c rw shared:300 - nsfs nsfs rw");
        assertEquals(Optional.of(new MountTable.Place("8:2", Path.of("/b/x/y"))),
                t.place(base.resolve("instances/x/y")));
        assertEquals(Optional.of(new MountTable.Place("0:50", base.resolve("etc"))), t.place(base.resolve("etc")));
    }

    @Test
    void theKernelsEscapesAreReadBack() {
        assertEquals("/mnt/with space\\x", MountTable.unescape("/mnt/with\\040space\\134x"));
        assertThrows(IllegalArgumentException.class, () -> MountTable.parse(List.of("not a mount line")));
    }

    /** This process's own table: every line parses, and the root lies somewhere. */
    @Test
    void theRealTableIsRead() throws Exception {
        assertTrue(MountTable.read(MountTable.SELF).place(Path.of("/")).isPresent());
    }
}
