package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.AgentUid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rule for what the agent trusts at start: the file and every folder on the way owned by root or the
 * agent, none writable by others (a sticky folder above excepted). Giving a file away needs root, as CI runs.
 */
class TrustedPathTest {
    /** Skipped, these refusals would go untested: the tests run as root (scripts/test, .ci/run). */
    private static final String AS_ROOT = "chown needs root: run the tests as root, as scripts/test and .ci/run do";
    /** A UID that is not the test's (nor, in practice, anyone's on the build machine). */
    private static final int OTHER_UID = 4242;

    @TempDir
    Path base;

    private Path dir;
    private Path file;

    @BeforeEach
    void layout() throws IOException {
        dir = Files.createDirectory(base.resolve("etc"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        file = Files.writeString(dir.resolve("agent.json"), "{}");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }

    private static void requireFile(Path p) throws StartupException {
        TrustedPath.checkFile("config file", p, AgentUid.current());
    }

    @Test
    void anAllowedRootHoldsNoneOfTheAgentsOwnFilesNorLiesInsideThem() throws IOException {
        Path runtime = Files.createDirectory(base.resolve("runtime"));
        Path root = Files.createDirectory(base.resolve("instances"));
        Map<String, Path> own = Map.of("config file", file, "java runtime", runtime);
        assertDoesNotThrow(() -> TrustedPath.requireOutsideRoots(config(root), own));
        Path link = Files.createSymbolicLink(base.resolve("to-etc"), dir);
        for (Path bad : List.of(dir, runtime.resolve("lib"), link)) {
            StartupException e = assertThrows(StartupException.class,
                    () -> TrustedPath.requireOutsideRoots(config(root, bad), own), bad::toString);
            assertTrue(e.getMessage().contains("allowed root other (" + bad + ")"), e.getMessage());
        }
        // the config file reached through a link into a root
        Path inRoot = Files.writeString(root.resolve("agent.json"), "{}");
        Path viaLink = Files.createSymbolicLink(dir.resolve("linked.json"), inRoot);
        assertThrows(StartupException.class,
                () -> TrustedPath.requireOutsideRoots(config(root), Map.of("config file", viaLink)));
    }

    /**
     * An allowed root the config names through a link: its target was resolved once, when the config was read, and
     * only the real path was walked. Whoever owns the link (or may write the folder holding it) could re-point it,
     * and the next start would take whatever folder it then names as the root. Now the configured way is walked
     * too: a link someone else owns, or one in a folder others may write, refuses the start.
     */
    @Test
    void theWayTheConfigNamesARootIsCheckedAsItsRealPath() throws IOException {
        assertEquals(AgentUid.ROOT, AgentUid.current(), AS_ROOT);
        Path real = Files.createDirectories(base.resolve("srv/instances"));
        Path ops = Files.createDirectory(base.resolve("ops"));
        Path link = Files.createSymbolicLink(ops.resolve("instances"), real);
        AdminConfig named = configNaming(real, link);
        assertDoesNotThrow(() -> TrustedPath.checkRoots(named, AgentUid.ROOT), "root's link in root's folder");
        Files.setAttribute(link, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        StartupException e = assertThrows(StartupException.class, () -> TrustedPath.checkRoots(named, AgentUid.ROOT));
        assertTrue(e.getMessage().contains("allowed root instances " + link + ": " + link
                + " is a link owned by UID " + OTHER_UID), e.getMessage());
        Files.setAttribute(link, "unix:uid", AgentUid.ROOT, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(ops, PosixFilePermissions.fromString("rwxrwxrwx")); // anyone may re-link
        e = assertThrows(StartupException.class, () -> TrustedPath.checkRoots(named, AgentUid.ROOT));
        assertTrue(e.getMessage().contains(ops + " is writable by group or others"), e.getMessage());
    }

    /** A configuration whose root {@code instances} is {@code real}, named in the file as {@code configured}. */
    private AdminConfig configNaming(Path real, Path configured) {
        Path data = base.resolve("data");
        return new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), base.resolve("run/docker.sock"),
                base.resolve("secret"), data, Map.of("instances", real), Map.of("instances", configured),
                List.of("dogama-net"), List.of("127.0.0.1"), new AdminConfig.PortRange(20000, 30000),
                new AdminConfig.Limits(1L << 30, 1_000_000_000L, 64, 10), false, List.of(), java.util.Optional.empty(),
                new AdminConfig.Audit(data.resolve("audit"), AdminConfig.DEFAULT_AUDIT_MAX_FILE_BYTES));
    }

    /** A configuration with the allowed root {@code instances} and, if given, {@code other}. */
    private AdminConfig config(Path instances, Path... other) {
        Map<String, Path> roots = other.length == 0 ? Map.of("instances", instances)
                : Map.of("instances", instances, "other", other[0]);
        return new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), base.resolve("run/docker.sock"),
                base.resolve("secret"), base.resolve("data"), roots, List.of("dogama-net"), List.of("127.0.0.1"),
                new AdminConfig.PortRange(20000, 30000), new AdminConfig.Limits(1L << 30, 1_000_000_000L, 64, 10),
                false);
    }

    @Test
    void aFileOfRootOrTheAgentInFoldersOfTheirsIsTrusted() {
        assertDoesNotThrow(() -> requireFile(file));
        // The same through a relative path with a dot segment and a step back.
        assertDoesNotThrow(() -> requireFile(dir.resolve("./../etc/agent.json")));
    }

    @Test
    void aFileWritableByGroupOrOthersIsRefused() throws IOException {
        for (String mode : new String[] {"rw-rw-r--", "rw-r--rw-"}) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
            StartupException e = assertThrows(StartupException.class, () -> requireFile(file));
            assertTrue(e.getMessage().contains(file + " is writable by group or others"), e.getMessage());
        }
    }

    @Test
    void aFolderAboveWritableByOthersIsRefusedUnlessItIsSticky() throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        StartupException e = assertThrows(StartupException.class, () -> requireFile(file));
        assertTrue(e.getMessage().contains(dir + " is writable by group or others (mode 0777)"), e.getMessage());
        // Sticky, as /tmp is: others cannot remove or rename the file, which is root's or the agent's.
        Files.setAttribute(dir, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        assertDoesNotThrow(() -> requireFile(file));
        // The file itself never gets that exception.
        Files.setAttribute(file, "unix:mode", 01666, LinkOption.NOFOLLOW_LINKS);
        assertThrows(StartupException.class, () -> requireFile(file));
    }

    @Test
    void aFileOrAFolderAboveOwnedBySomeoneElseIsRefused() throws IOException {
        assertEquals(AgentUid.ROOT, AgentUid.current(), AS_ROOT);
        Files.setAttribute(file, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        StartupException e = assertThrows(StartupException.class, () -> requireFile(file));
        assertTrue(e.getMessage().contains(file + " is owned by UID " + OTHER_UID), e.getMessage());
        Files.setAttribute(file, "unix:uid", AgentUid.ROOT, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(dir, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        e = assertThrows(StartupException.class, () -> requireFile(file));
        assertTrue(e.getMessage().contains(dir + " is owned by UID " + OTHER_UID + "; only root or the agent's UID 0"
                + " may own it or a folder above it"), e.getMessage());
        // The agent's own UID is trusted like root.
        assertDoesNotThrow(() -> TrustedPath.check("config file", file, true, OTHER_UID));
    }

    @Test
    void aLinkIntoAFolderOfSomeoneElseIsRefused() throws IOException {
        assertEquals(AgentUid.ROOT, AgentUid.current(), AS_ROOT);
        Path theirs = Files.createDirectory(base.resolve("home-of-someone"));
        Path target = Files.writeString(theirs.resolve("agent.json"), "{}");
        Files.setAttribute(theirs, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        Path link = Files.createSymbolicLink(dir.resolve("linked.json"), target);
        StartupException e = assertThrows(StartupException.class, () -> requireFile(link));
        assertTrue(e.getMessage().contains(theirs + " is owned by UID " + OTHER_UID), e.getMessage());
        // A link to a trusted file is fine...
        Path good = Files.createSymbolicLink(dir.resolve("good.json"), file);
        assertDoesNotThrow(() -> requireFile(good));
        // ...unless the link sits where someone else could replace it.
        Path sneaky = Files.createSymbolicLink(theirs.resolve("to-trusted.json"), file);
        e = assertThrows(StartupException.class, () -> requireFile(sneaky));
        assertTrue(e.getMessage().contains(theirs + " is owned by UID " + OTHER_UID), e.getMessage());
    }

    /**
     * A link reached through another link: the folder holding the second one is checked too. Resolving the first
     * link at once to its real path checked only the folders of that path, so whoever may write the folder of
     * the second link could re-point it between the check and the open.
     */
    @Test
    void aLinkReachedThroughAnotherLinkIsCheckedWithTheFolderHoldingIt() throws IOException {
        Path shared = Files.createDirectory(base.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.createSymbolicLink(shared.resolve("l2"), dir);
        Path first = Files.createSymbolicLink(base.resolve("l1"), shared.resolve("l2"));
        StartupException e = assertThrows(StartupException.class, () -> requireFile(first.resolve("agent.json")));
        assertTrue(e.getMessage().contains(shared + " is writable by group or others"), e.getMessage());
        // The same chain through folders of root's or the agent's only passes.
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertDoesNotThrow(() -> requireFile(first.resolve("agent.json")));
    }

    /**
     * The engine makes its socket again at each start and the agent connects by name: in a folder others may
     * add entries to, sticky or not, one could take the name while the engine is down.
     */
    @Test
    void theSocketsFolderMayBeWrittenByNobodyElseNotEvenWithTheStickyBit() throws IOException {
        Path run = Files.createDirectory(base.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertDoesNotThrow(() -> TrustedPath.requireSocket("docker socket", run.resolve("docker.sock")));
        Files.setAttribute(run, "unix:mode", 01777);
        assertDoesNotThrow(() -> TrustedPath.requireAncestors("docker socket", run.resolve("docker.sock")),
                "a sticky folder passes the check of the folders above a file");
        StartupException e = assertThrows(StartupException.class,
                () -> TrustedPath.requireSocket("docker socket", run.resolve("docker.sock")));
        assertTrue(e.getMessage().contains("writable by group or others (mode 1777)"), e.getMessage());
    }

    /** A link in the middle of a path to a sticky folder (as /var/lock to /run/lock) passes as that folder does. */
    @Test
    void aLinkToAStickyFolderOnTheWayPassesAsTheFolderDoes() throws IOException {
        Path sticky = Files.createDirectory(base.resolve("shared-tmp"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path inside = Files.writeString(sticky.resolve("agent.json"), "{}");
        Files.setPosixFilePermissions(inside, PosixFilePermissions.fromString("rw-r--r--"));
        assertDoesNotThrow(() -> requireFile(inside));
        Path link = Files.createSymbolicLink(dir.resolve("tmp"), sticky);
        assertDoesNotThrow(() -> requireFile(link.resolve("agent.json")));
    }

    /** In a sticky folder anyone may add a link: one that is not root's or the agent's is refused. */
    @Test
    void aLinkOfSomeoneElseInAStickyFolderIsRefused() throws IOException {
        assertEquals(AgentUid.ROOT, AgentUid.current(), AS_ROOT);
        Path sticky = Files.createDirectory(base.resolve("sticky"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path link = Files.createSymbolicLink(sticky.resolve("agent.json"), file);
        assertDoesNotThrow(() -> requireFile(link));
        Files.setAttribute(link, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        StartupException e = assertThrows(StartupException.class, () -> requireFile(link));
        assertTrue(e.getMessage().contains("a link owned by UID " + OTHER_UID), e.getMessage());
    }

    @Test
    void onlyTheFoldersAboveAreCheckedForADirectoryAndAMissingPathPassesAsFarAsItGoes() throws IOException {
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx")); // DataDirectory's to judge
        assertDoesNotThrow(() -> TrustedPath.check("data directory", data, false, AgentUid.current()));
        assertDoesNotThrow(() -> TrustedPath.check("data directory", dir.resolve("missing/data"), false,
                AgentUid.current()));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertThrows(StartupException.class, () -> TrustedPath.check("data directory", data, false, AgentUid.current()));
        assertThrows(StartupException.class, () -> TrustedPath.check("data directory", dir.resolve("missing/data"),
                false, AgentUid.current()));
    }

    /**
     * A file the agent reads must exist when it is checked. It passed as far as it went, and was read a moment later:
     * in a sticky folder (which passes above a file) anyone could create it in between, with their own content (an
     * ACL can let the agent read it), and the agent took their secret. Once checked, a file that is root's or the
     * agent's cannot be removed or renamed by anyone else in a sticky folder.
     */
    @Test
    void aFileTheAgentReadsMustExistWhenChecked() throws IOException {
        Path sticky = Files.createDirectory(base.resolve("sticky"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        StartupException e = assertThrows(StartupException.class, () -> requireFile(sticky.resolve("secret")));
        assertTrue(e.getMessage().endsWith("config file " + sticky.resolve("secret") + " is missing"), e.getMessage());
        assertThrows(StartupException.class, () -> requireFile(dir.resolve("missing/agent.json")));
        Files.writeString(sticky.resolve("secret"), "x");
        Files.setPosixFilePermissions(sticky.resolve("secret"), PosixFilePermissions.fromString("rw-------"));
        assertDoesNotThrow(() -> requireFile(sticky.resolve("secret")));
    }

    @Test
    void aTreeIsTrustedOnlyWhenEverythingInItIs() throws IOException {
        Path runtime = Files.createDirectories(dir.resolve("runtime/lib/server"));
        runtime = runtime.getParent().getParent();
        Path library = Files.writeString(runtime.resolve("lib/libnative.so"), "elf");
        Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path link = Files.createSymbolicLink(runtime.resolve("lib/linked.so"), library);
        int uid = AgentUid.current();
        Path tree = runtime;
        assertDoesNotThrow(() -> TrustedPath.checkTree("java runtime", tree, uid));

        // A file deep inside that others may change: only the walk through the tree finds it.
        Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxrwxr-x"));
        StartupException e = assertThrows(StartupException.class, () -> TrustedPath.checkTree("java runtime", tree, uid));
        assertTrue(e.getMessage().contains(library + " is writable by group or others (mode 0775)"), e.getMessage());

        // The same tree named through a link: still walked inside.
        Path viaLink = Files.createSymbolicLink(dir.resolve("current"), runtime);
        e = assertThrows(StartupException.class, () -> TrustedPath.checkTree("java runtime", viaLink, uid));
        assertTrue(e.getMessage().contains(library + " is writable by group or others (mode 0775)"), e.getMessage());
        Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertDoesNotThrow(() -> TrustedPath.checkTree("java runtime", viaLink, uid));

        // A folder inside gets no sticky exception: whoever may add a file there may add a library.
        Path server = runtime.resolve("lib/server");
        Files.setAttribute(server, "unix:mode", 01777, LinkOption.NOFOLLOW_LINKS);
        e = assertThrows(StartupException.class, () -> TrustedPath.checkTree("java runtime", tree, uid));
        assertTrue(e.getMessage().contains(server + " is writable by group or others (mode 1777)"), e.getMessage());
        Files.setAttribute(server, "unix:mode", 0755, LinkOption.NOFOLLOW_LINKS);

        // A link inside is followed to its target, wherever that is.
        Path outside = Files.createDirectory(base.resolve("outside"));
        Path elsewhere = Files.writeString(outside.resolve("libother.so"), "elf");
        Files.delete(link);
        Files.createSymbolicLink(link, elsewhere);
        assertDoesNotThrow(() -> TrustedPath.checkTree("java runtime", tree, uid));
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwxrwxrwx"));
        e = assertThrows(StartupException.class, () -> TrustedPath.checkTree("java runtime", tree, uid));
        assertTrue(e.getMessage().contains(outside + " is writable by group or others"), e.getMessage());
    }
}
