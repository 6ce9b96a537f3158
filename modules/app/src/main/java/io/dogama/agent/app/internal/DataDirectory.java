package io.dogama.agent.app.internal;

import io.dogama.agent.policy.AgentUid;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The start-up check of the data directory (SPEC section 9): it holds the registry (plans, env values
 * included), the registry's MAC key and the nonce journal, so whoever may write into it may forge or
 * replace what the agent trusts. Runs before any part of the agent opens a file there.
 *
 * <ul>
 *   <li>a folder above it that someone else may change ({@link TrustedPath}): refused, since they could
 *       rename the directory away and put one of their own in its place;</li>
 *   <li>missing: created, with mode 0700 given at creation (never a chmod afterwards, so there is no
 *       moment in which it is open to others, whatever the process umask); only its last component,
 *       the parent must exist;</li>
 *   <li>a symbolic link or not a directory: refused;</li>
 *   <li>owned by anyone but the agent's own UID: refused (an agent run as root would otherwise trust a
 *       registry key and records their owner can replace, whatever the mode says);</li>
 *   <li>writable by group or others: refused (the operator fixes it, the agent never loosens or
 *       tightens an operator's directory by itself);</li>
 *   <li>readable or searchable by group or others, or holding top-level entries that are: started,
 *       with one warning naming the entries (files written by an earlier version were 0644).</li>
 * </ul>
 */
final class DataDirectory {
    private static final System.Logger LOG = System.getLogger(DataDirectory.class.getName());

    /** The data directory's name in messages. */
    static final String DATA = "data directory";
    /** A configured audit folder's name in messages. */
    static final String AUDIT = "audit directory";
    /** The mode the agent creates the directory with. */
    static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    /** Bits that make the directory a place others can change: refused. */
    static final Set<PosixFilePermission> WRITABLE_BY_OTHERS = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    /** Bits that let others read or list: a warning. */
    static final Set<PosixFilePermission> OPEN_TO_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    /** Most entries named in the warning about open entries. */
    static final int MAX_NAMED_ENTRIES = 8;

    private DataDirectory() {
    }

    /**
     * Creates the data directory if it is missing and checks its owner and mode.
     *
     * @param dir the configured data directory
     * @throws StartupException if it cannot be created, is not a real directory, is owned by another UID,
     *                          or is writable by group or others
     */
    static void prepare(Path dir) throws StartupException {
        prepare(DATA, dir);
    }

    /**
     * The same for another folder of the agent's own: a configured audit folder outside the data directory
     * (its lines' key is in the data directory, but whoever may write in the folder may remove lines).
     *
     * @param what the folder's name in messages, e.g. {@value #DATA}
     * @param dir  the folder
     * @throws StartupException as {@link #prepare(Path)}
     */
    static void prepare(String what, Path dir) throws StartupException {
        TrustedPath.requireAncestors(what, dir);
        PosixFileAttributes attrs;
        try {
            attrs = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException missing) {
            attrs = create(what, dir);
        } catch (IOException | UnsupportedOperationException e) {
            throw new StartupException(what + " " + dir + " cannot be read", e);
        }
        if (attrs.isSymbolicLink()) {
            throw new StartupException(what + " " + dir + " is a symbolic link; configure the real path", null);
        }
        if (!attrs.isDirectory()) {
            throw new StartupException(what + " " + dir + " is not a directory", null);
        }
        int owner = owner(what, dir);
        int agent = AgentUid.current();
        if (owner != agent) {
            throw new StartupException(what + " " + dir + " is owned by UID " + owner + ", not by the agent's UID "
                    + agent + " (chown " + agent + " " + dir + ")", null);
        }
        if (attrs.permissions().stream().anyMatch(WRITABLE_BY_OTHERS::contains)) {
            throw new StartupException(what + " " + dir + " is writable by group or others (mode "
                    + PosixFilePermissions.toString(attrs.permissions()) + "); the agent creates it 0700 (chmod 0700 " + dir + ")",
                    null);
        }
        checkEntries(what, dir, attrs);
    }

    private static int owner(String what, Path dir) throws StartupException {
        try {
            return (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            throw new StartupException(what + " " + dir + " cannot be read", e);
        }
    }

    private static PosixFileAttributes create(String what, Path dir) throws StartupException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            LOG.log(System.Logger.Level.INFO, "app: created the " + what + " " + dir + " (mode 0700)");
        } catch (FileAlreadyExistsException raced) {
            // made by someone else meanwhile: checked like any existing directory
        } catch (NoSuchFileException e) {
            throw new StartupException(what + " " + dir + " is missing and so is its parent", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new StartupException(what + " " + dir + " is missing and cannot be created", e);
        }
        try {
            return Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new StartupException(what + " " + dir + " cannot be read", e);
        }
    }

    /**
     * Entries others may only read are warned about; one they may write is refused: through a directory they may
     * enter (0755 is only warned about) they could truncate the registry, put back an older copy of it, or hold its
     * lock, and the agent never changes a mode the operator set.
     */
    private static void checkEntries(String what, Path dir, PosixFileAttributes dirAttrs) throws StartupException {
        List<String> open = new ArrayList<>();
        List<String> writable = new ArrayList<>();
        if (dirAttrs.permissions().stream().anyMatch(OPEN_TO_OTHERS::contains)) {
            open.add(". (" + PosixFilePermissions.toString(dirAttrs.permissions()) + ")");
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : (Iterable<Path>) entries.sorted()::iterator) {
                PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                Set<PosixFilePermission> mode = a.permissions();
                if (mode.stream().anyMatch(OPEN_TO_OTHERS::contains)) {
                    open.add(p.getFileName() + " (" + PosixFilePermissions.toString(mode) + ")");
                }
                // A link's own mode is always rwxrwxrwx and means nothing; the agent never follows one here.
                if (!a.isSymbolicLink() && mode.stream().anyMatch(WRITABLE_BY_OTHERS::contains)) {
                    writable.add(p.getFileName() + " (" + PosixFilePermissions.toString(mode) + ")");
                }
            }
        } catch (IOException e) {
            throw new StartupException(what + " " + dir + " cannot be listed", e);
        }
        if (!writable.isEmpty()) {
            throw new StartupException(what + " " + dir + " holds entries writable by group or others: "
                    + named(writable) + "; the agent creates its files 0600 (chmod -R go-w " + dir + ")", null);
        }
        if (!open.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "app: " + what + " " + dir + ": open to group or others: "
                    + named(open) + "; the agent creates its files 0600 and the directory 0700 (chmod -R go= " + dir + ")");
        }
    }

    private static String named(List<String> entries) {
        return String.join(", ", entries.subList(0, Math.min(entries.size(), MAX_NAMED_ENTRIES)))
                + (entries.size() > MAX_NAMED_ENTRIES ? " and " + (entries.size() - MAX_NAMED_ENTRIES) + " more" : "");
    }
}
