package io.dogama.agent.app.internal;

import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.AgentUid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Who may change what the agent trusts at start: root and the agent's own UID, nobody else (the rule
 * OpenSSH applies to its users' key files). The config file says which host folders may be mounted
 * into containers and which file holds the request secret, the secret decides who may drive the
 * agent, and the data directory holds its registry; so a user who can rewrite or replace any of them
 * can act as root on the host through the agent.
 *
 * <p>A file is trusted when it and every folder on the way to it, from {@code /}, are owned by root
 * or by the agent's UID, and none of them is writable by group or others. One exception: a folder
 * above the file may be writable by others when its sticky bit is set (as {@code /tmp} is): others
 * may add entries there but not remove or rename one they do not own, and the next step of the path
 * is checked to be root's or the agent's. Symbolic links on the way are followed one hop at a time:
 * the folder holding each link is checked, the link must be root's or the agent's, and its target is
 * walked alike, so that a link reached through another link is checked with the folder holding it.
 *
 * <p>A path whose folder does not exist passes as far as it goes (the data directory is then created in a
 * folder that passed); a file the agent reads ({@link #requireFile}) must exist when it is checked.
 */
final class TrustedPath {
    private static final int STICKY = 01000;
    /** Symbolic links followed on one path before it is refused, as the kernel's own limit (40). */
    private static final int MAX_LINKS = 40;

    private TrustedPath() {
    }

    /**
     * An allowed root may hold none of the agent's own files, nor lie inside one of its folders: a container
     * given a bind source there could change them as its user may (with {@code allowRootUser}, as root),
     * and the agent would trust them at its next start. The config file would approve new roots, the Java
     * runtime is the agent's own code. (The Docker socket's folder, the data and audit directories and the
     * secret file are the configuration's own rules.)
     *
     * @param config the configuration
     * @param own    the agent's files and folders by their names in messages
     * @throws StartupException if a root holds one of them or lies inside one
     */
    static void requireOutsideRoots(AdminConfig config, Map<String, Path> own) throws StartupException {
        for (Map.Entry<String, Path> o : own.entrySet()) {
            Optional<String> root = config.rootAround(o.getValue());
            if (root.isPresent()) {
                throw new StartupException("allowed root " + root.get() + " ("
                        + config.configuredRoots().get(root.get()) + ") holds the " + o.getKey() + " " + o.getValue()
                        + ", or lies inside it", null);
            }
        }
    }

    /**
     * @param what the file's name in messages, e.g. "config file"
     * @param file the file as configured
     * @throws StartupException if the file or a folder above it may be changed by someone else
     */
    static void requireFile(String what, Path file) throws StartupException {
        checkFile(what, file, AgentUid.current());
    }

    /**
     * As {@link #requireFile}, for the given agent UID (tests). A file that is missing is refused here, not later
     * where it is read: in a sticky folder (which passes above a file) anyone could create it in between, and the
     * agent would read a file of theirs; one that existed when checked is root's or the agent's, and in a sticky
     * folder nobody else may remove or rename it.
     */
    static void checkFile(String what, Path file, int agentUid) throws StartupException {
        if (new Walk(what, file, agentUid).run(true) == null) {
            throw new StartupException(what + " " + file + " is missing", null);
        }
    }

    /**
     * Only the folders above {@code dir}: the last step has its own rules (the data directory's in
     * {@link DataDirectory}, an allowed root's in the policy's path rules; the engine owns its socket, and
     * the metrics file is replaced by a rename).
     *
     * @param what the path's name in messages
     * @param dir  the path as configured
     * @throws StartupException if a folder above it may be changed by someone else
     */
    static void requireAncestors(String what, Path dir) throws StartupException {
        check(what, dir, false, AgentUid.current());
    }

    /**
     * The folders above every allowed root, on the way the file names it as well as on its real path: the
     * configured form may pass through a link (its target was resolved once, when the config was read), and
     * whoever may re-point that link chooses the folder the next start takes as the root. Below a root the
     * policy's path rules check every folder and link on the way to a bind source; above it they rely on this.
     *
     * @param config the configuration
     * @throws StartupException if a folder or link on the way to a root may be changed by someone else
     */
    static void requireRoots(AdminConfig config) throws StartupException {
        checkRoots(config, AgentUid.current());
    }

    /** As above, for the given agent UID (tests). */
    static void checkRoots(AdminConfig config, int agentUid) throws StartupException {
        for (Map.Entry<String, Path> root : config.allowedRoots().entrySet()) {
            String what = "allowed root " + root.getKey();
            check(what, root.getValue(), false, agentUid);
            Path configured = config.configuredRoots().get(root.getKey());
            if (configured != null && !configured.equals(root.getValue())) {
                check(what, configured, false, agentUid);
            }
        }
    }

    /**
     * The folders above {@code socket} as {@link #requireAncestors}, and its own folder writable by nobody else,
     * not even with the sticky bit: the engine removes its socket when it stops and makes it again when it
     * starts, and the agent connects by name at every call, so whoever may add an entry to that folder could
     * take the name while the engine is down and be sent every plan, env values included.
     *
     * @param what   the socket's name in messages
     * @param socket the socket as configured
     * @throws StartupException if a folder above it may be changed, or its folder written, by someone else
     */
    static void requireSocket(String what, Path socket) throws StartupException {
        requireAncestors(what, socket);
        // The engine makes its socket again in the folder the name leads to.
        requireOwnFolder(what, socket, () -> MountTable.real(socket.toAbsolutePath()).getParent(),
                "could take the socket's name while the engine is down");
    }

    /**
     * The folders above {@code file} as {@link #requireAncestors}, and its own folder writable by nobody else, not
     * even with the sticky bit: the file is replaced by a rename, and in a sticky folder another user could make
     * the name theirs first, after which every rename fails and the collector reads their file (session 38's
     * review; the metrics are where {@code dogama_audit_last_sequence} is read off the host).
     *
     * @param what the file's name in messages
     * @param file the file as configured
     * @throws StartupException if a folder above it may be changed, or its folder written, by someone else
     */
    static void requireReplacedFile(String what, Path file) throws StartupException {
        requireAncestors(what, file);
        if (Files.isDirectory(file.toAbsolutePath().getParent())) { // one made later is checked before each write
            // The folder the rename happens in: the file's name may be a link planted there, leading elsewhere.
            requireOwnFolder(what, file, () -> MountTable.real(file.toAbsolutePath().getParent()),
                    "could make the name theirs before the agent's rename");
        }
    }

    /** The folder a path's entry is made in, real. */
    @FunctionalInterface
    private interface FolderOf {
        Path get() throws IOException;
    }

    private static void requireOwnFolder(String what, Path path, FolderOf folderOf, String risk)
            throws StartupException {
        Path folder;
        int mode;
        try {
            folder = folderOf.get();
            mode = (Integer) Files.getAttribute(folder, "unix:mode");
        } catch (IOException | RuntimeException e) {
            throw new StartupException(what + " " + path + ": its folder cannot be read", e);
        }
        if ((mode & AgentUid.GROUP_OR_OTHER_WRITE) != 0) {
            throw new StartupException(what + " " + path + ": its folder " + folder + " is writable by group or"
                    + " others (mode " + String.format("%04o", mode & 07777) + "); whoever may add an entry there "
                    + risk, null);
        }
    }

    /** As above, for the given agent UID (tests). */
    static void check(String what, Path path, boolean includingLast, int agentUid) throws StartupException {
        new Walk(what, path, agentUid).run(includingLast);
    }

    /**
     * A folder and everything in it: the folder as {@link #requireFile}, then every file and folder below
     * it on its own, with no exception for a sticky folder. For the agent's own runtime: the JVM reads
     * classes from {@code lib/modules} and loads native libraries from {@code lib/} (junixsocket's among
     * them) long after the process began, so whoever may change one of them runs code as the agent.
     * A symbolic link inside is checked as a configured path is: its target from the root down.
     *
     * @param what the folder's name in messages
     * @param dir  the folder
     * @throws StartupException if the folder, a folder above it or anything in it may be changed by
     *                          someone else
     */
    static void requireTree(String what, Path dir) throws StartupException {
        checkTree(what, dir, AgentUid.current());
    }

    /** As above, for the given agent UID (tests). */
    static void checkTree(String what, Path dir, int agentUid) throws StartupException {
        new Walk(what, dir, agentUid).run(true);
        List<Path> nodes;
        // From the real folder: a walk does not follow links, so one begun at a link would list the link alone.
        try (Stream<Path> walk = Files.walk(dir.toRealPath())) {
            nodes = walk.toList();
        } catch (IOException | UncheckedIOException e) {
            throw new StartupException(what + " " + dir + " cannot be read", e);
        }
        for (Path node : nodes) {
            Walk own = new Walk(what, node, agentUid);
            Map<String, Object> a = own.attributes(node);
            if (a == null) {
                throw new StartupException(what + " " + dir + " changed while it was checked: " + node + " is gone",
                        null);
            }
            if (Boolean.TRUE.equals(a.get("isSymbolicLink"))) {
                own.run(true);
            } else {
                own.check(node, a, false);
            }
        }
    }

    private static final class Walk {
        private final String what;
        private final Path path;
        private final int agentUid;
        private int links;

        Walk(String what, Path path, int agentUid) {
            this.what = what;
            this.path = path;
            this.agentUid = agentUid;
        }

        /** @return the real path reached, or null where a step is missing */
        Path run(boolean includingLast) throws StartupException {
            return walk(path.toAbsolutePath(), includingLast, false);
        }

        /**
         * Checks every step of {@code absolute} from the root, following each symbolic link one hop at a time:
         * the folder that holds a link passed, the link is root's or the agent's, and its target is walked the
         * same way (a link inside the target, and the folder holding it, are checked in turn).
         *
         * @param lastIsAbove whether the last name is a folder on the way to something further (a link's
         *                    target in the middle of a path: a sticky folder is allowed there as anywhere above)
         * @return the real path reached, or null where a step is missing
         */
        private Path walk(Path absolute, boolean includingLast, boolean lastIsAbove) throws StartupException {
            Path current = absolute.getRoot();
            if (!node(current, true)) {
                return null;
            }
            int names = absolute.getNameCount();
            for (int i = 0; i < names; i++) {
                String name = absolute.getName(i).toString();
                boolean last = i == names - 1;
                if (name.equals(".")) {
                    continue;
                }
                if (name.equals("..")) {
                    // As the kernel resolves it: the parent of the real folder reached so far, already checked.
                    current = current.getParent() != null ? current.getParent() : current;
                    continue;
                }
                Path next = current.resolve(name);
                Map<String, Object> a = attributes(next);
                if (a == null) {
                    return null; // missing: nothing below it exists either
                }
                if (Boolean.TRUE.equals(a.get("isSymbolicLink"))) {
                    if (++links > MAX_LINKS) {
                        throw refused(next + " is one symbolic link too many on the way", null);
                    }
                    // In a sticky folder others may add entries: a link there must be root's or the agent's.
                    int uid = (Integer) a.get("uid");
                    if (!AgentUid.trustedOwner(uid, agentUid)) {
                        throw refused(next + " is a link owned by UID " + uid + "; only root or the agent's UID "
                                + agentUid + " may own one on the way", null);
                    }
                    Path target;
                    try {
                        target = current.resolve(Files.readSymbolicLink(next)); // relative to the link's folder
                    } catch (IOException e) {
                        throw refused(next + " cannot be read", e);
                    }
                    Path reached = walk(target.toAbsolutePath(), !last || includingLast, !last || lastIsAbove);
                    if (reached == null) {
                        return null;
                    }
                    current = reached;
                    continue;
                }
                if (!last || includingLast) {
                    check(next, a, !last || lastIsAbove);
                }
                current = next;
            }
            return current;
        }

        private boolean node(Path p, boolean above) throws StartupException {
            Map<String, Object> a = attributes(p);
            if (a == null) {
                return false;
            }
            check(p, a, above);
            return true;
        }

        private void check(Path p, Map<String, Object> a, boolean above) throws StartupException {
            int uid = (Integer) a.get("uid");
            int mode = (Integer) a.get("mode");
            if (!AgentUid.trustedOwner(uid, agentUid)) {
                throw refused(p + " is owned by UID " + uid + "; only root or the agent's UID " + agentUid
                        + " may own it" + (p.equals(path) ? "" : " or a folder above it"), null);
            }
            boolean sticky = above && (mode & STICKY) != 0;
            if ((mode & AgentUid.GROUP_OR_OTHER_WRITE) != 0 && !sticky) {
                throw refused(p + " is writable by group or others (mode " + String.format("%04o", mode & 07777) + ")",
                        null);
            }
        }

        /** @return the node's own attributes (a link is not followed), or null if it does not exist */
        private Map<String, Object> attributes(Path p) throws StartupException {
            try {
                return Files.readAttributes(p, "unix:uid,mode,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                throw refused(p + " cannot be read", e);
            }
        }

        private StartupException refused(String why, Throwable cause) {
            return new StartupException(what + " " + path + ": " + why + "; whoever can change it controls the agent",
                    cause);
        }
    }
}
