package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.policy.AgentUid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 9 (1.1): the data directory is created 0700, and one writable by group or others is refused;
 * one owned by another UID is refused too.
 */
class DataDirectoryTest {
    /** Skipped, these refusals would go untested: the tests run as root (scripts/test, .ci/run). */
    private static final String AS_ROOT = "chown needs root: run the tests as root, as scripts/test and .ci/run do";
    /** A UID that is not the test's (nor, in practice, anyone's on the build machine). */
    private static final int OTHER_UID = 4242;

    @TempDir
    Path base;

    @Test
    void aMissingDirectoryIsCreated0700() throws Exception {
        // The mode comes from the creating call alone: the test JVM's umask (022 here) would give 0755.
        Path dir = base.resolve("data");
        DataDirectory.prepare(dir);
        assertTrue(Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS));
        assertEquals("rwx------", mode(dir));
    }

    @Test
    void aMissingParentIsNotCreated() {
        Path dir = base.resolve("absent/data");
        StartupException e = assertThrows(StartupException.class, () -> DataDirectory.prepare(dir));
        assertTrue(e.getMessage().contains("parent"), e.getMessage());
        assertTrue(Files.notExists(base.resolve("absent")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rwxrwx---", "rwx-w----", "rwx---rwx", "rwx----w-", "rwxrwxrwx"})
    void aDirectoryWritableByGroupOrOthersIsRefused(String mode) throws IOException {
        Path dir = Files.createDirectory(base.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
        StartupException e = assertThrows(StartupException.class, () -> DataDirectory.prepare(dir));
        assertTrue(e.getMessage().startsWith("app: refusing to start: data directory " + dir
                + " is writable by group or others"), e.getMessage());
        assertEquals(mode, mode(dir), "the agent never changes the operator's directory");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rwx------", "r-x------", "rwxr-x---", "rwxr-xr-x"})
    void aDirectoryNotWritableByOthersIsAccepted(String mode) throws IOException {
        Path dir = Files.createDirectory(base.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
        Files.createFile(dir.resolve("registry.dat"));
        assertDoesNotThrow(() -> DataDirectory.prepare(dir));
    }

    /** Found by a review: others could truncate the registry, or put an older copy back, through a 0755 directory. */
    @ParameterizedTest
    @ValueSource(strings = {"rw-rw-rw-", "rw--w----", "rw-----w-"})
    void anEntryWritableByGroupOrOthersIsRefused(String mode) throws IOException {
        Path dir = Files.createDirectory(base.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path registry = Files.createFile(dir.resolve("registry.dat"));
        Files.setPosixFilePermissions(registry, PosixFilePermissions.fromString(mode));
        StartupException e = assertThrows(StartupException.class, () -> DataDirectory.prepare(dir));
        assertTrue(e.getMessage().contains("holds entries writable by group or others: registry.dat (" + mode + ")"),
                e.getMessage());
        assertEquals(mode, mode(registry), "the agent never changes the operator's modes");
        Files.setPosixFilePermissions(registry, PosixFilePermissions.fromString("rw-r--r--"));
        assertDoesNotThrow(() -> DataDirectory.prepare(dir), "readable by others is only warned about");
        // A link's own mode (always rwxrwxrwx) is no mode others could use: an operator's backup link is fine.
        Files.createSymbolicLink(dir.resolve("registry.bak"), base);
        assertDoesNotThrow(() -> DataDirectory.prepare(dir), "a link in the data directory");
    }

    /**
     * An agent run as root would otherwise trust a registry key and records that the directory's owner
     * can replace at will (the mode is theirs to change). Needs root to give the folder away, as CI runs.
     */
    @Test
    void aDirectoryOwnedBySomeoneElseIsRefused() throws IOException {
        assertEquals(AgentUid.ROOT, AgentUid.current(), AS_ROOT);
        Path dir = Files.createDirectory(base.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(dir, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        StartupException e = assertThrows(StartupException.class, () -> DataDirectory.prepare(dir));
        assertEquals("app: refusing to start: data directory " + dir + " is owned by UID " + OTHER_UID
                + ", not by the agent's UID 0 (chown 0 " + dir + ")", e.getMessage());
        assertEquals(OTHER_UID, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS),
                "the agent never changes the operator's directory");
        // Given back, the same folder is accepted.
        Files.setAttribute(dir, "unix:uid", AgentUid.ROOT, LinkOption.NOFOLLOW_LINKS);
        assertDoesNotThrow(() -> DataDirectory.prepare(dir));
    }

    @Test
    void aSymbolicLinkIsRefused() throws IOException {
        Path real = Files.createDirectory(base.resolve("real"));
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwx------"));
        Path link = Files.createSymbolicLink(base.resolve("data"), real);
        StartupException e = assertThrows(StartupException.class, () -> DataDirectory.prepare(link));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    }

    @Test
    void aFileIsRefused() throws IOException {
        Path file = Files.createFile(base.resolve("data"));
        assertThrows(StartupException.class, () -> DataDirectory.prepare(file));
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
