package io.dogama.agent.app.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a path of the agent's view lies in its file system: the file system's device and the path inside it,
 * from the kernel's mount table ({@code /proc/self/mountinfo}).
 *
 * <p>The configuration's rules keep the agent's own files out of every allowed root by comparing paths as the
 * agent sees them. In a container (SPEC section 13) the config, the secret and the data volume are bind mounts
 * of host folders at other paths, while a plan's bind source is a host path: an allowed root around the host
 * folder of the config or the secret, or around the data volume's folder, passed every check in the agent's
 * view, and a container given a source there could read the secret or rewrite the config. Two paths name the
 * same folder when they are on the same device at the same path inside it, whatever their mount points; this
 * compares them so.
 */
final class MountTable {
    /** The kernel's table of this process's mounts. */
    static final Path SELF = Path.of("/proc/self/mountinfo");

    /** One line: the device, the folder of its file system that is mounted, and where. */
    record Mount(String device, String root, Path mountPoint) {
    }

    /**
     * A path inside a file system.
     *
     * @param device the file system's device, {@code major:minor}
     * @param path   the absolute path inside it
     */
    record Place(String device, Path path) {
        /** @return true if one holds the other (or they are the same) */
        boolean overlaps(Place other) {
            return device.equals(other.device) && (path.startsWith(other.path) || other.path.startsWith(path));
        }
    }

    private final List<Mount> mounts;

    private MountTable(List<Mount> mounts) {
        this.mounts = mounts;
    }

    static MountTable read(Path file) throws StartupException {
        try {
            // Decoded leniently: a mount point whose name is not UTF-8 matches nothing, and stops no start.
            return parse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList());
        } catch (IOException | IllegalArgumentException e) {
            throw new StartupException("the mount table " + file + " cannot be read", e);
        }
    }

    /**
     * @param lines the lines of a mountinfo file (proc(5))
     * @return the table
     * @throws IllegalArgumentException if a line is not one
     */
    static MountTable parse(List<String> lines) {
        List<Mount> mounts = new ArrayList<>();
        for (String line : lines) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ");
            // ID, parent ID, major:minor, root, mount point, options, optional fields..., "-", type, source, options
            if (f.length < 10 || !f[2].matches("[0-9]+:[0-9]+") || !f[4].startsWith("/")) {
                throw new IllegalArgumentException("not a mountinfo line");
            }
            if (!f[3].startsWith("/")) {
                continue; // not a folder of a file system: a namespace file (nsfs, "net:[4026532284]") and the like
            }
            mounts.add(new Mount(f[2], unescape(f[3]), Path.of(unescape(f[4]))));
        }
        return new MountTable(List.copyOf(mounts));
    }

    /** The kernel writes space, tab, newline and backslash in a path as a backslash and three octal digits. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * @param real an absolute path without links ({@link #real})
     * @return where it lies: the last mount (the one on top) whose mount point holds it
     */
    Optional<Place> place(Path real) {
        Mount best = null;
        for (Mount m : mounts) {
            if (real.startsWith(m.mountPoint())
                    && (best == null || m.mountPoint().getNameCount() >= best.mountPoint().getNameCount())) {
                best = m;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        Path inside = Path.of(best.root()).resolve(best.mountPoint().relativize(real).toString()).normalize();
        return Optional.of(new Place(best.device(), inside));
    }

    /**
     * The path without links, as far as it exists, with the rest of its names after that.
     *
     * @param p an absolute path
     * @return its real form
     */
    static Path real(Path p) throws IOException {
        Path absolute = p.toAbsolutePath().normalize();
        Path existing = absolute;
        while (existing != null) {
            try {
                return existing.toRealPath().resolve(existing.relativize(absolute).toString()).normalize();
            } catch (NoSuchFileException e) {
                existing = existing.getParent();
            }
        }
        return absolute;
    }

    /**
     * @param roots the allowed roots by name
     * @param own   the agent's own files and folders by their names in messages
     * @throws StartupException if a root and one of them are the same folder of one file system, or one holds
     *                          the other, wherever each is mounted
     */
    void requireApart(Map<String, Path> roots, Map<String, Path> own) throws StartupException {
        Map<Map.Entry<String, Path>, Place> mine = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Path> o : own.entrySet()) {
            placeOf(o.getValue()).ifPresent(p -> mine.put(o, p));
        }
        for (Map.Entry<String, Path> r : roots.entrySet()) {
            for (Place root : reach(r.getValue())) {
                for (Map.Entry<Map.Entry<String, Path>, Place> m : mine.entrySet()) {
                    if (root.overlaps(m.getValue())) {
                        throw apart(r, "the " + m.getKey().getKey() + " " + m.getKey().getValue(), root,
                                m.getValue(), "change the agent's own files");
                    }
                }
            }
        }
    }

    /** The files the engine bind-mounts into each container from {@code <data root>/containers/<id>/}. */
    private static final java.util.Set<String> ENGINE_FILES = java.util.Set.of("hostname", "hosts", "resolv.conf");
    private static final java.util.regex.Pattern ENGINE_FILE_ROOT =
            java.util.regex.Pattern.compile("^(.*)/containers/[0-9a-f]{64}/(hostname|hosts|resolv\\.conf)$");

    /**
     * The engine's data root and the allowed roots, wherever each is mounted. A root may not hold the data root or
     * lie inside it, nor lie inside a file system the engine mounted below it (a disk of its own for
     * {@code volumes/}), nor reach a folder of it that is a link ({@code volumes/}, a volume or its {@code _data}
     * moved to a bigger disk); a file system below the data root that lies inside a root (a volume bound to a
     * folder of the root) is the administrator's choice, and passes. The data root is placed where this process
     * sees it; in a container that is not given it, from the engine's own files of this container
     * ({@code /etc/hostname}, {@code /etc/hosts} and {@code /etc/resolv.conf} are binds of
     * {@code <data root>/containers/<id>/...}, so their lines give its device and folder); and failing both, its
     * host path is compared with the folder of each file system a root exposes (right where the data root lies on
     * the host's root file system).
     *
     * @param roots    the allowed roots by name
     * @param dataRoot the engine's {@code DockerRootDir}, a host path without links
     * @param what     its name in messages
     * @throws StartupException if a root reaches the data root, or a part of it
     */
    void requireApartFromEngine(Map<String, Path> roots, Path dataRoot, String what) throws StartupException {
        String could = "reach other containers' files";
        // Whole places, compared both ways: the data root, and where its links lead.
        Map<String, Place> whole = new java.util.LinkedHashMap<>();
        // Places only a root inside which is refused: the file systems mounted below the data root. Built from their
        // lines, never resolved: the agent may not enter the data root (0710), and a mount there is no link.
        Map<String, Place> inside = new java.util.LinkedHashMap<>();
        Optional<Place> seen = placeOrNothing(dataRoot);
        boolean visible = Files.isDirectory(dataRoot);
        if (visible && seen.isPresent()) {
            whole.put(what, seen.get());
        }
        for (Mount m : mounts) {
            java.util.regex.Matcher file = ENGINE_FILE_ROOT.matcher(m.root());
            if (ENGINE_FILES.contains(String.valueOf(m.mountPoint().getFileName())) && m.mountPoint().getNameCount() == 2
                    && m.mountPoint().startsWith("/etc") && file.matches()) {
                Path folder = Path.of(file.group(1).isEmpty() ? "/" : file.group(1));
                whole.put(what + " (from the engine's " + m.mountPoint() + ")", new Place(m.device(), folder));
            }
            if (m.mountPoint().startsWith(dataRoot) && !m.mountPoint().equals(dataRoot)) {
                inside.put(what + "'s mount " + m.mountPoint(), new Place(m.device(), Path.of(m.root())));
            }
        }
        if (visible) {
            for (Path link : links(dataRoot, what)) {
                placeOrNothing(link).ifPresent(p -> whole.put(what + "'s link " + link, p));
            }
        }
        for (Map.Entry<String, Path> r : roots.entrySet()) {
            for (Place root : reach(r.getValue())) {
                for (Map.Entry<String, Place> e : whole.entrySet()) {
                    if (root.overlaps(e.getValue())) {
                        throw apart(r, "the " + e.getKey(), root, e.getValue(), could);
                    }
                }
                for (Map.Entry<String, Place> e : inside.entrySet()) {
                    if (root.device().equals(e.getValue().device()) && root.path().startsWith(e.getValue().path())) {
                        throw apart(r, "the " + e.getKey(), root, e.getValue(), could);
                    }
                }
                Path folder = root.path();
                if (whole.isEmpty() && folder.getNameCount() > 0
                        && (folder.startsWith(dataRoot) || dataRoot.startsWith(folder))) {
                    throw new StartupException("allowed root " + r.getKey() + " (" + r.getValue() + ") exposes the "
                            + "folder " + folder + " of its file system (" + root.device() + "), which holds or lies "
                            + "inside the " + what + " " + dataRoot + ": a container given a bind source there could "
                            + could, null);
                }
            }
        }
    }

    /** The links among the data root's folders, its volumes and their {@code _data}: where a bigger disk is put. */
    private static List<Path> links(Path dataRoot, String what) throws StartupException {
        List<Path> out = new ArrayList<>();
        List<Path> look = new ArrayList<>(List.of(dataRoot));
        for (int depth = 0; depth < 3 && !look.isEmpty(); depth++) {
            List<Path> next = new ArrayList<>();
            for (Path dir : look) {
                try (java.nio.file.DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                    for (Path child : children) {
                        if (Files.isSymbolicLink(child)) {
                            out.add(child);
                        } else if (depth == 0 && child.getFileName().toString().equals("volumes")
                                || depth == 1 && Files.isDirectory(child, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                            next.add(child);
                        }
                    }
                } catch (java.nio.file.AccessDeniedException e) {
                    // An agent that is not root on the host may not list it (the engine's is 0710): its links are
                    // unknown here; the data root itself is still placed.
                } catch (IOException | java.nio.file.DirectoryIteratorException e) {
                    throw new StartupException("the " + what + " " + dataRoot + " cannot be listed", e);
                }
            }
            look = next;
        }
        return out;
    }

    /** @return where {@code p} lies, resolved as far as this process may; nothing if it may not look at all */
    private Optional<Place> placeOrNothing(Path p) {
        try {
            return place(real(p));
        } catch (IOException e) {
            return place(p.toAbsolutePath().normalize());
        }
    }

    /**
     * Every place a bind of {@code root} exposes: the folder it lies in, and every file system mounted below it
     * (the engine binds recursively, so a container given the root sees those too).
     */
    private List<Place> reach(Path root) throws StartupException {
        List<Place> places = new ArrayList<>();
        Path real;
        try {
            real = real(root);
        } catch (IOException e) {
            throw new StartupException(root + " cannot be resolved", e);
        }
        place(real).ifPresent(places::add);
        for (Mount m : mounts) {
            if (m.mountPoint().startsWith(real) && !m.mountPoint().equals(real)) {
                places.add(new Place(m.device(), Path.of(m.root())));
            }
        }
        return places;
    }

    /**
     * @param other the other path by its name in messages, e.g. "the config file /etc/x.json"
     * @param could what a container given a bind source there could do
     */
    private static StartupException apart(Map.Entry<String, Path> r, String other, Place root, Place mine,
            String could) {
        return new StartupException("allowed root " + r.getKey() + " (" + r.getValue() + ") and " + other
                + " are, through their mounts, the folders " + root.path() + " and " + mine.path()
                + " of one file system (" + root.device() + "), one inside the other: a container given a bind source "
                + "there could " + could, null);
    }

    private Optional<Place> placeOf(Path p) throws StartupException {
        try {
            return place(real(p));
        } catch (IOException e) {
            throw new StartupException(p + " cannot be resolved", e);
        }
    }
}
