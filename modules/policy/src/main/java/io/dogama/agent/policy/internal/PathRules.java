package io.dogama.agent.policy.internal;

import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.AgentUid;
import io.dogama.agent.policy.Rules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Host path rules (SPEC sections 2, 8.3, 11): syntax first (absolute, no dot or empty segment, no
 * control character); then a path lexically outside every allowed root is refused without any file
 * system call, so the answer never depends on whether it exists (1.1); only then {@code toRealPath}
 * resolves EVERY symlink, and the real path is compared component by component
 * ({@link Path#startsWith(Path)}) with the real allowed root, so {@code /srv/x-evil} is not below
 * {@code /srv/x} and a link anywhere on the way cannot escape. (1.1) Every folder from the root down
 * to a bind source's parent must be owned by root or the agent and writable by no one else, so no
 * container can swap a component between the check and the engine's mount.
 */
public final class PathRules {
    /** Longest host path accepted (Linux PATH_MAX). */
    public static final int MAX_PATH_LENGTH = 4096;
    /** Most paths in one check-disk request. */
    public static final int MAX_CHECK_PATHS = 16;
    /** Most symlinks followed in one lenient resolution (Linux's MAXSYMLINKS). */
    static final int MAX_LINK_HOPS = 40;
    /**
     * Most names looked up in one lenient resolution. Forty links of 4,095 bytes each, padded with {@code x/..},
     * make some 30,000 lookups, and every later validation walks every registered source again: a path that needs
     * more than this is refused ({@code unsafe_ancestor}) before it can be registered.
     */
    static final int MAX_LOOKUPS = 1024;

    private final AdminConfig config;
    private final int agentUid;
    private final List<Path> sockets;
    private final List<Path> socketFolders;
    private final List<Path> dataDirs;
    private final List<Path> lexicalRoots;

    /**
     * Path rules for this process: root and {@link AgentUid#current()} are the trusted owners of a
     * source's ancestors (only root when the agent's UID cannot be learned: stricter, never laxer).
     *
     * @param config the administrator's configuration
     */
    public PathRules(AdminConfig config) {
        this(config, AgentUid.current());
    }

    /**
     * @param config   the administrator's configuration
     * @param agentUid the UID the agent runs as: besides root, the one owner trusted for a source's
     *                 ancestors
     */
    public PathRules(AdminConfig config, int agentUid) {
        this.config = config;
        this.agentUid = agentUid;
        this.sockets = forms(config.dockerSocket());
        this.socketFolders = sockets.stream().map(s -> s.getParent() == null ? s : s.getParent()).toList();
        this.dataDirs = forms(config.dataDir());
        List<Path> roots = new ArrayList<>(config.allowedRoots().values());
        config.configuredRoots().values().stream().filter(r -> !roots.contains(r)).forEach(roots::add);
        this.lexicalRoots = List.copyOf(roots);
    }

    /**
     * The (1.1) lexical rule: a path whose text is not at or below an allowed root (its real or its
     * configured form), compared by components, is outside every root whatever the file system
     * holds. No file system call is made, so the answer cannot tell whether the path exists.
     *
     * @param syntacticallyValid a path that passed {@link #syntax}
     * @return true if lexically at or below some allowed root
     */
    boolean lexicallyInsideSomeRoot(String syntacticallyValid) {
        Path p = Path.of(syntacticallyValid);
        return lexicalRoots.stream().anyMatch(p::startsWith);
    }

    /**
     * The GID owning the Docker socket, read now (so a change by the operator applies at the next
     * validation). Members of that group can drive the engine: such a container is one mount away
     * from host root (SPEC 8.6, 1.1).
     *
     * @return the group, or empty if the socket cannot be read (then no GID can be proven safe)
     */
    public java.util.OptionalInt socketGroup() {
        try {
            return java.util.OptionalInt.of((Integer) Files.getAttribute(config.dockerSocket(), "unix:gid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return java.util.OptionalInt.empty();
        }
    }

    /**
     * @param p an absolute path
     * @return its normalized form and its best-effort real form (one entry when they are equal)
     */
    public static List<Path> forms(Path p) {
        Path normalized = p.toAbsolutePath().normalize();
        Path real = resolveExisting(p);
        return normalized.equals(real) ? List.of(normalized) : List.of(normalized, real);
    }

    /**
     * Resolves the longest existing prefix of a path with {@code toRealPath} and appends the rest, so
     * a link on the way to a not-yet-existing path is still seen through.
     *
     * @param p an absolute path
     * @return its best-effort real form
     */
    public static Path resolveExisting(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null) {
            try {
                Path real = existing.toRealPath();
                return real.resolve(existing.relativize(abs));
            } catch (IOException e) {
                existing = existing.getParent();
            }
        }
        return abs;
    }

    /**
     * Resolves a path as {@code realpath} would, following every symlink, dangling ones included,
     * and keeping the names that do not exist: where the path would lead if its missing part were
     * created.
     *
     * @param p an absolute path
     * @return the lenient real form; empty after {@link #MAX_LINK_HOPS} links (a loop)
     */
    static Optional<Path> resolveLeniently(Path p) {
        return walk(p, link -> true, step -> { });
    }

    /**
     * Every path the resolution of {@code p} goes through before its end, in order: each name looked up, a symbolic
     * link or a folder (the folders a link's target passes through, and leaves again by its {@code ..}, included),
     * each named by its real folder and its own name. Whoever can write where one of them lies can make it a link,
     * or re-point it, and so move where the path leads (Validator's rules on the way to a source). For a path with
     * no link these are its ancestors.
     *
     * @param p an absolute path
     * @return the paths gone through before the end, each once; those before a loop, after {@link #MAX_LINK_HOPS}
     *     links or {@link #MAX_LOOKUPS} names
     */
    public static List<Path> wayTo(Path p) {
        List<Path> steps = new ArrayList<>();
        Optional<Path> end = walk(p.toAbsolutePath(), link -> true, steps::add);
        if (end.isPresent() && !steps.isEmpty() && steps.getLast().equals(end.get())) {
            steps.removeLast(); // the end itself, reached by its own name
        }
        return List.copyOf(new java.util.LinkedHashSet<>(steps));
    }

    /**
     * Follows {@code p} name by name as {@link #resolveLeniently} does.
     *
     * @param p    an absolute path
     * @param link asked, for each symbolic link met, about where it sits (its real folder and its name)
     * @param step told each name looked up, where it sits, link or not
     * @return where the path leads; empty after a loop or when {@code link} refused a link
     */
    private static Optional<Path> walk(Path p, java.util.function.Predicate<Path> link,
            java.util.function.Consumer<Path> step) {
        Path result = p.getRoot();
        // Names stay paths, never strings: a name that is not valid in the file-name encoding (a byte 0xff under
        // UTF-8) reads back as U+FFFD, which names another entry or none, and the walk would leave the way the
        // kernel takes (session 38's review of the first version of wayTo).
        java.util.Deque<Path> names = new java.util.ArrayDeque<>();
        p.forEach(names::addLast);
        int hops = 0;
        int lookups = 0;
        while (!names.isEmpty()) {
            Path name = names.removeFirst();
            String text = name.toString();
            if (text.isEmpty() || text.equals(".")) {
                continue;
            }
            if (text.equals("..")) {
                result = result.getParent() == null ? result : result.getParent();
                continue;
            }
            if (++lookups > MAX_LOOKUPS) {
                return Optional.empty();
            }
            Path next = result.resolve(name);
            step.accept(next);
            if (!Files.isSymbolicLink(next)) {
                result = next;
                continue;
            }
            if (++hops > MAX_LINK_HOPS || !link.test(next)) {
                return Optional.empty();
            }
            try {
                Path target = Files.readSymbolicLink(next);
                List<Path> targetNames = new ArrayList<>();
                target.forEach(targetNames::add);
                for (int i = targetNames.size() - 1; i >= 0; i--) {
                    names.addFirst(targetNames.get(i));
                }
                if (target.isAbsolute()) {
                    result = target.getRoot();
                }
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        return Optional.of(result);
    }

    /**
     * Syntax check of a host or container path as sent.
     *
     * @param path  the text
     * @param field the violation field
     * @param out   violation sink
     * @return true if no violation was added
     */
    public static boolean syntax(String path, String field, List<Violation> out) {
        int before = out.size();
        if (path.length() > MAX_PATH_LENGTH || path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)
                || !representable(path)) {
            out.add(new Violation(field, Rules.INVALID_PATH));
            return false;
        }
        if (!path.startsWith("/")) {
            out.add(new Violation(field, Rules.NOT_ABSOLUTE));
        }
        if (path.length() > 1) {
            String[] segments = path.substring(path.startsWith("/") ? 1 : 0).split("/", -1);
            boolean dot = false;
            boolean empty = false;
            for (String s : segments) {
                dot |= s.equals(".") || s.equals("..");
                empty |= s.isEmpty();
            }
            if (dot) {
                out.add(new Violation(field, Rules.DOT_SEGMENT));
            }
            if (empty) {
                out.add(new Violation(field, Rules.EMPTY_SEGMENT));
            }
        }
        return out.size() == before;
    }

    /**
     * A path's text can name a file only in the file-name encoding the JVM took from its locale
     * ({@code sun.jnu.encoding}): under the C locale that is ASCII, and {@code Path.of} throws for any
     * other character. Refused here, at the one gate every stated path passes, so that such a path is
     * {@code invalid_path} and never an internal error further on.
     */
    private static boolean representable(String path) {
        try {
            Path.of(path);
            return true;
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /**
     * Full check of a bind source: syntax, existence, file type, below {@code root} (strictly), and
     * never the Docker socket's folder or the data directory.
     *
     * @param source   the source as sent
     * @param rootName the template's root name
     * @param field    violation field
     * @param out      violation sink
     * @return the real path, or empty when a violation was added
     */
    public Optional<Path> bindSource(String source, String rootName, String field, List<Violation> out) {
        if (!syntax(source, field, out)) {
            return Optional.empty();
        }
        Path root = config.allowedRoots().get(rootName);
        if (root == null) {
            out.add(new Violation(field, Rules.ROOT_NOT_CONFIGURED));
            return Optional.empty();
        }
        if (!lexicallyInsideSomeRoot(source)) {
            out.add(new Violation(field, Rules.OUTSIDE_ALLOWED_ROOT));
            return Optional.empty();
        }
        Optional<Path> real = real(source, field, p -> p.startsWith(root), out);
        if (real.isEmpty()) {
            return real;
        }
        int before = out.size();
        Path r = real.get();
        if (!r.startsWith(root) || r.equals(root)) {
            // Nothing more about a path outside: a link planted below the root would otherwise tell what lies
            // where it points (a name in the data directory, a device), as real() promises it cannot.
            out.add(new Violation(field, Rules.OUTSIDE_ALLOWED_ROOT));
            return Optional.empty();
        }
        forbidden(r, field, out);
        fileType(r, field, out);
        if (!(safeAncestors(root, r) && safeLinks(source))) {
            out.add(new Violation(field, Rules.UNSAFE_ANCESTOR));
        }
        return out.size() == before ? real : Optional.empty();
    }

    /**
     * Every folder from {@code root} (included) down to the parent of {@code real} is owned by root
     * or the agent and has no group or other write bit. Then only root and the agent can rename,
     * replace or link an entry on the way, so what was validated is what the engine mounts; the
     * source itself may belong to anyone (the instance's user writes inside it, never above it).
     *
     * @param root a real allowed root
     * @param real a real path strictly below it
     * @return true if every ancestor is safe; false also when one cannot be read
     */
    boolean safeAncestors(Path root, Path real) {
        Path dir = root;
        for (Path name : root.relativize(real.getParent() == null ? real : real.getParent())) {
            if (!safeFolder(dir)) {
                return false;
            }
            if (name.toString().isEmpty()) {
                return true;
            }
            dir = dir.resolve(name);
        }
        return safeFolder(dir);
    }

    /**
     * Every symbolic link the stated path passes through at or below an allowed root, any root and not only the
     * template's (a stated path may begin below another one), sits in a folder that {@link #safeAncestors} would
     * accept. The other instances' claims are worked out from their stated sources each time
     * (Validator's {@code Sources}), so a link a container could re-point (one in its own source folder, say) would
     * let a registered source move out from under its claim, and another plan then take the folder it mounts.
     * A folder root or the agent owns can still lie inside a bind source, where a container running as either
     * writes: Validator's rules on what a source's path goes through ({@link #wayTo}) refuse those. Links above the roots are the administrator's, as the
     * folders there.
     *
     * @param source a stated source that resolved
     * @return false also when the path changed while it was followed
     */
    boolean safeLinks(String source) {
        return walk(Path.of(source), link -> {
            Path folder = link.getParent();
            return config.allowedRoots().values().stream().noneMatch(folder::startsWith) || safeFolder(folder);
        }, step -> { }).isPresent();
    }

    private boolean safeFolder(Path dir) {
        try {
            // NOFOLLOW: the path is real; a link appearing here since is itself a swap, refused below.
            Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode,isDirectory", LinkOption.NOFOLLOW_LINKS);
            int uid = (Integer) a.get("uid");
            int mode = (Integer) a.get("mode");
            return Boolean.TRUE.equals(a.get("isDirectory")) && AgentUid.trustedOwner(uid, agentUid)
                    && (mode & AgentUid.GROUP_OR_OTHER_WRITE) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Result of a check-disk validation. */
    public record Checked(List<Path> paths, List<Violation> violations) {
        /** Copies. */
        public Checked {
            paths = List.copyOf(paths);
            violations = List.copyOf(violations);
        }
    }

    /**
     * The check-disk rule: 1..{@link #MAX_CHECK_PATHS} paths, each at or below ANY allowed root.
     *
     * @param paths as sent
     * @return the real paths in order, or the violations
     */
    public Checked checkDisk(List<String> paths) {
        List<Violation> out = new ArrayList<>();
        if (paths.isEmpty() || paths.size() > MAX_CHECK_PATHS) {
            return new Checked(List.of(), List.of(new Violation("paths", Rules.PATH_COUNT)));
        }
        List<Path> reals = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            String field = "paths[" + i + "]";
            if (!syntax(paths.get(i), field, out)) {
                continue;
            }
            if (!lexicallyInsideSomeRoot(paths.get(i))) {
                out.add(new Violation(field, Rules.OUTSIDE_ALLOWED_ROOT));
                continue;
            }
            Optional<Path> real = real(paths.get(i), field,
                    p -> config.allowedRoots().values().stream().anyMatch(p::startsWith), out);
            if (real.isEmpty()) {
                continue;
            }
            Path r = real.get();
            if (config.allowedRoots().values().stream().noneMatch(r::startsWith)) {
                out.add(new Violation(field, Rules.OUTSIDE_ALLOWED_ROOT)); // and nothing more: see bindSource
                continue;
            }
            forbidden(r, field, out);
            fileType(r, field, out);
            reals.add(r);
        }
        return out.isEmpty() ? new Checked(reals, List.of()) : new Checked(List.of(), out);
    }

    /**
     * @param created a path a container was created with
     * @return true if it still exists and is its own real path (no symlink on the way)
     */
    public static boolean stillReal(String created) {
        try {
            Path p = Path.of(created);
            return p.isAbsolute() && p.toRealPath().equals(p);
        } catch (IOException | InvalidPathException e) {
            return false;
        }
    }

    /**
     * Resolves every symlink. A path that cannot be resolved is {@code not_found} only when its
     * best-effort resolution still lies where it may ({@code inside}); a link inside a root that
     * leads outside is {@code outside_allowed_root} whether its target exists or not, so a link a
     * container planted cannot serve as an existence oracle for host paths either.
     */
    private static Optional<Path> real(String path, String field, java.util.function.Predicate<Path> inside,
            List<Violation> out) {
        try {
            Path real = Path.of(path).toRealPath();
            if (!namedByItsText(real)) {
                out.add(new Violation(field, Rules.INVALID_PATH));
                return Optional.empty();
            }
            return Optional.of(real);
        } catch (IOException | InvalidPathException e) {
            boolean within;
            try {
                within = resolveLeniently(Path.of(path)).map(inside::test).orElse(false);
            } catch (InvalidPathException invalid) {
                within = false;
            }
            out.add(new Violation(field, within ? Rules.NOT_FOUND : Rules.OUTSIDE_ALLOWED_ROOT));
            return Optional.empty();
        }
    }

    /**
     * A name that is not valid in the file-name encoding (a byte 0xff under UTF-8) comes back from
     * {@code toString()} with U+FFFD in its place, which names another entry (or none under an ASCII
     * locale). The engine is given that text, so it must name this very path.
     */
    private static boolean namedByItsText(Path real) {
        try {
            return Path.of(real.toString()).equals(real);
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** Devices, sockets and fifos are never mounted, even below a root. */
    private static void fileType(Path real, String field, List<Violation> out) {
        try {
            // real has no links left; NOFOLLOW only guards against a swap since it was resolved.
            BasicFileAttributes a = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory() && !a.isRegularFile()) {
                out.add(new Violation(field, Rules.NOT_REGULAR));
            }
        } catch (IOException e) {
            out.add(new Violation(field, Rules.NOT_FOUND));
        }
    }

    private void forbidden(Path real, String field, List<Violation> out) {
        // Both directions: a source inside the socket folder, or one that contains it, exposes the socket.
        if (sockets.contains(real) || socketFolders.stream().anyMatch(s -> real.startsWith(s) || s.startsWith(real))) {
            out.add(new Violation(field, Rules.DOCKER_SOCKET));
        }
        if (dataDirs.stream().anyMatch(d -> real.startsWith(d) || d.startsWith(real))) {
            out.add(new Violation(field, Rules.DATA_DIR));
        }
    }
}
