package io.dogama.agent.policy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Rules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ancestor rule with an agent that does not run as root (the deployment's numeric user). */
class PathRulesTest {
    private static final int AGENT_UID = 4242;

    @TempDir
    Path tmp;

    private PathRules rules(Path root) {
        AdminConfig c = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), tmp.resolve("run/docker.sock"),
                tmp.resolve("secret"), tmp.resolve("data"), Map.of("instances", root), List.of("dogama-games"),
                List.of("0.0.0.0"), new AdminConfig.PortRange(20000, 40000),
                new AdminConfig.Limits(1L << 30, 1_000_000_000L, 100, 10), false);
        return new PathRules(c, AGENT_UID);
    }

    @Test
    void foldersOwnedByTheAgentOrRootAreSafeAnyOtherOwnerIsNot() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        Path source = Files.createDirectories(root.resolve("a/b/data"));
        PathRules r = rules(root);
        Files.setAttribute(root.resolve("a"), "unix:uid", AGENT_UID, LinkOption.NOFOLLOW_LINKS);
        assertTrue(r.safeAncestors(root, source), "root and the agent are trusted");
        Files.setAttribute(root.resolve("a/b"), "unix:uid", AGENT_UID + 1, LinkOption.NOFOLLOW_LINKS);
        assertFalse(r.safeAncestors(root, source), "any other owner may swap an entry");
        Files.setAttribute(root.resolve("a/b"), "unix:uid", 0, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(source, "unix:uid", AGENT_UID + 1, LinkOption.NOFOLLOW_LINKS);
        assertTrue(r.safeAncestors(root, source), "the source itself is not an ancestor");
        Files.setAttribute(root, "unix:uid", AGENT_UID + 1, LinkOption.NOFOLLOW_LINKS);
        assertFalse(r.safeAncestors(root, source), "the root is included");
        assertFalse(r.safeAncestors(root, root.resolve("direct")), "also for a source right below it");
    }

    @Test
    void theLexicalRuleNeedsNoFileSystem() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        PathRules r = rules(root);
        assertTrue(r.lexicallyInsideSomeRoot(root + "/never/created"));
        assertTrue(r.lexicallyInsideSomeRoot(root.toString()));
        assertFalse(r.lexicallyInsideSomeRoot(root + "-evil/x"), "components, not string prefixes");
        assertFalse(r.lexicallyInsideSomeRoot("/etc/shadow"));
    }

    /**
     * A path no file can be named by in this JVM: a string escape that is half a character (an unpaired surrogate),
     * or, under the C locale, any character outside ASCII (AsciiLocaleE2ETest). It reached {@code Path.of} in the
     * lexical rule and was an internal error; it is {@code invalid_path}, for a plan and for check-disk alike.
     */
    @Test
    void aPathThatNamesNoFileIsInvalidNotAnInternalError() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        PathRules r = rules(root);
        for (String path : List.of(root + "/a\ud800", "/etc/\udc80", root + "/\udc80\ud800")) {
            List<Violation> out = new ArrayList<>();
            assertTrue(r.bindSource(path, "instances", "mounts[0].source", out).isEmpty());
            assertEquals(List.of(new Violation("mounts[0].source", Rules.INVALID_PATH)), out);
            assertEquals(List.of(new Violation("paths[0]", Rules.INVALID_PATH)), r.checkDisk(List.of(path)).violations());
        }
    }

    /**
     * The configuration refuses a root that overlaps the socket's folder or the data directory, as their paths
     * resolve when it is read; the rule resolves them again when it is made, and refuses both, in both
     * directions, for a plan and for check-disk. Reached here as it would be when a link on their way was
     * re-pointed into a root between the two.
     */
    @Test
    void theSocketsFolderAndTheDataDirectoryAreRefusedWhenTheyResolveBelowARoot() throws IOException {
        Path base = tmp.toRealPath();
        Path root = Files.createDirectories(base.resolve("srv/instances"));
        Path run = Files.createDirectories(root.resolve("a/run"));
        Path data = Files.createDirectories(root.resolve("b/data"));
        Path beside = Files.createDirectories(root.resolve("c/work"));
        Files.createDirectories(base.resolve("elsewhere/a/run"));
        Files.createDirectories(base.resolve("elsewhere/b/data"));
        Path link = Files.createSymbolicLink(base.resolve("via"), base.resolve("elsewhere"));
        AdminConfig c = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480),
                link.resolve("a/run/docker.sock"), base.resolve("secret"), link.resolve("b/data"),
                Map.of("instances", root), List.of("dogama-games"), List.of("0.0.0.0"),
                new AdminConfig.PortRange(20000, 40000), new AdminConfig.Limits(1L << 30, 1_000_000_000L, 100, 10),
                false);
        Files.delete(link);
        Files.createSymbolicLink(link, root);
        PathRules r = new PathRules(c, AGENT_UID);
        String field = "mounts[0].source";
        assertEquals(List.of(new Violation(field, Rules.DOCKER_SOCKET)), bind(r, run.toString()), "the socket's folder");
        assertEquals(List.of(new Violation(field, Rules.DOCKER_SOCKET)), bind(r, root.resolve("a").toString()),
                "a folder that holds the socket's folder");
        assertEquals(List.of(new Violation(field, Rules.DATA_DIR)), bind(r, data.toString()), "the data directory");
        assertEquals(List.of(new Violation(field, Rules.DATA_DIR)), bind(r, root.resolve("b").toString()),
                "a folder that holds the data directory");
        Path inside = Files.createDirectories(data.resolve("registry"));
        assertEquals(List.of(new Violation(field, Rules.DATA_DIR)), bind(r, inside.toString()),
                "a folder inside the data directory");
        assertEquals(List.of(), bind(r, beside.toString()), "a folder beside them is a source like any other");
        assertEquals(List.of(new Violation("paths[0]", Rules.DOCKER_SOCKET), new Violation("paths[1]", Rules.DATA_DIR)),
                r.checkDisk(List.of(root.resolve("a").toString(), inside.toString())).violations());
    }

    /**
     * The kernel follows at most 40 links on one path (MAXSYMLINKS), and so does the lenient walk that decides whether
     * an unresolvable source is missing or outside: forty are followed, a forty-first is a loop, found outside (and the
     * link rule refuses a walk it would cut short, so a registered source never escapes its claim that way).
     */
    @Test
    void aChainOfFortyLinksIsFollowedAndOneMoreIsALoop() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        Path target = Files.createDirectories(root.resolve("w/target"));
        Path forty = chain(root.resolve("w"), "a", PathRules.MAX_LINK_HOPS, target);
        Path fortyOne = chain(root.resolve("w"), "b", PathRules.MAX_LINK_HOPS + 1, target);
        PathRules r = rules(root);
        assertEquals(java.util.Optional.of(target), PathRules.resolveLeniently(forty));
        assertEquals(java.util.Optional.empty(), PathRules.resolveLeniently(fortyOne));
        assertEquals(List.of(), bind(r, forty.toString()), "forty links resolve like any source");
        assertEquals(List.of(new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT)), bind(r, fortyOne.toString()),
                "a forty-first link is a loop for the kernel and for the rule alike");
    }

    /** @return the first of {@code count} links in {@code dir}, each to the next, the last to {@code target} */
    private static Path chain(Path dir, String name, int count, Path target) throws IOException {
        Files.createSymbolicLink(dir.resolve(name + (count - 1)), target);
        for (int i = count - 2; i >= 0; i--) {
            Files.createSymbolicLink(dir.resolve(name + i), Path.of(name + (i + 1)));
        }
        return dir.resolve(name + 0);
    }

    /** A walk takes at most MAX_LOOKUPS names: exactly that many is followed, one more refused. */
    @Test
    void aWalkOfExactlyTheMostLookupsIsFollowedAndOneMoreIsRefused() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        Path dir = Files.createDirectories(root.resolve("w"));
        Files.createDirectories(dir.resolve("x"));
        Path target = Files.createDirectories(dir.resolve("t"));
        int first = 700; // each "x/../" is one lookup; two links keep each target under PATH_MAX
        for (int extra : new int[] {0, 1}) {
            Path l1 = dir.resolve("l1-" + extra);
            // The names of l1 itself, 700 x's, l2, the second link's x's and t: MAX_LOOKUPS + extra lookups.
            int second = PathRules.MAX_LOOKUPS + extra - l1.getNameCount() - first - 2;
            Files.createSymbolicLink(dir.resolve("l2-" + extra), Path.of("x/../".repeat(second) + "t"));
            Files.createSymbolicLink(l1, Path.of("x/../".repeat(first) + "l2-" + extra));
            assertEquals(extra == 0 ? java.util.Optional.of(target) : java.util.Optional.empty(),
                    PathRules.resolveLeniently(l1), "lookups over the bound: " + extra);
        }
    }

    /**
     * A link's target is taken name by name as the kernel takes it: "." stays where it is, ".." goes up to the real
     * folder's parent (and stays at "/" above the root), so the way holds the very folders the kernel goes through.
     */
    @Test
    void aLinksTargetIsFollowedNameByNameAsTheKernelFollowsIt() throws IOException {
        Path dir = Files.createDirectories(tmp.toRealPath().resolve("srv/instances/w"));
        Files.createDirectories(dir.resolve("x"));
        Path t = Files.createDirectories(dir.resolve("t"));
        Path dot = Files.createSymbolicLink(dir.resolve("dot"), Path.of("./t"));
        Path up = Files.createSymbolicLink(dir.resolve("up"), Path.of("x/../t"));
        Path aboveRoot = Files.createSymbolicLink(dir.resolve("above"), Path.of("/../.." + t));
        assertEquals(prefixes(dot), PathRules.wayTo(dot));
        List<Path> throughX = new ArrayList<>(prefixes(up));
        throughX.add(dir.resolve("x"));
        assertEquals(throughX, PathRules.wayTo(up), "x is looked up, then left by ..");
        assertEquals(prefixes(aboveRoot), PathRules.wayTo(aboveRoot), "the target's folders are already on the way");
        for (Path link : List.of(dot, up, aboveRoot)) {
            assertEquals(java.util.Optional.of(t), PathRules.resolveLeniently(link), link.toString());
        }
    }

    /** @return every path from the first name down to {@code p}, as a walk with no link looks them up */
    private static List<Path> prefixes(Path p) {
        List<Path> out = new ArrayList<>();
        for (int i = 1; i <= p.getNameCount(); i++) {
            out.add(p.getRoot().resolve(p.subpath(0, i)));
        }
        return out;
    }

    /**
     * A dangling link that climbs out of the root by ".." leads outside: outside_allowed_root, never not_found (which
     * would tell what does not exist there), even when it climbs past "/".
     */
    @Test
    void aDanglingLinkThatClimbsOutByDotDotIsOutsideNotMissing() throws IOException {
        Path base = tmp.toRealPath();
        Path root = Files.createDirectories(base.resolve("srv/instances"));
        Path dir = Files.createDirectories(root.resolve("w"));
        Files.createDirectories(base.resolve("outside"));
        PathRules r = rules(root);
        Path out = Files.createSymbolicLink(dir.resolve("out"), Path.of("../../../outside/gone"));
        Path past = Files.createSymbolicLink(dir.resolve("past"),
                Path.of("../".repeat(base.getNameCount() + 8) + base.toString().substring(1) + "/outside/gone"));
        Path stays = Files.createSymbolicLink(dir.resolve("stays"), Path.of("../w/gone"));
        assertEquals(List.of(new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT)), bind(r, out.toString()));
        assertEquals(List.of(new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT)), bind(r, past.toString()));
        assertEquals(List.of(new Violation("mounts[0].source", Rules.NOT_FOUND)), bind(r, stays.toString()));
    }

    /** The revalidation's last word: the path a container was created with is still its own real path. */
    @Test
    void stillRealHoldsOnlyForAnExistingAbsolutePathWithNoLinkOnIt() throws IOException {
        Path dir = Files.createDirectories(tmp.toRealPath().resolve("srv/instances/w/data"));
        Path link = Files.createSymbolicLink(dir.getParent().resolve("link"), dir);
        assertTrue(PathRules.stillReal(dir.toString()));
        assertFalse(PathRules.stillReal(link.toString()), "a link");
        Files.createDirectories(dir.resolve("sub"));
        assertFalse(PathRules.stillReal(link.resolve("sub").toString()), "a path below a link");
        assertFalse(PathRules.stillReal(dir.resolve("gone").toString()), "a vanished path");
        assertFalse(PathRules.stillReal("srv/instances"), "a relative path");
        assertFalse(PathRules.stillReal(dir + "/\u0000"), "a path no file can have");
    }

    @Test
    void aRealPathHasOneFormAndALinkedPathBoth() throws IOException {
        Path dir = Files.createDirectories(tmp.toRealPath().resolve("srv/instances/w"));
        Path link = Files.createSymbolicLink(tmp.toRealPath().resolve("via"), dir);
        assertEquals(List.of(dir), PathRules.forms(dir));
        assertEquals(List.of(link.resolve("x"), dir.resolve("x")), PathRules.forms(link.resolve("x")));
    }

    @Test
    void anAncestorThatCannotBeReadIsNotSafe() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        PathRules r = rules(root);
        assertTrue(r.safeAncestors(root, root.resolve("direct")));
        assertFalse(r.safeAncestors(root, root.resolve("gone/x")), "a folder that is not there proves nothing");
    }

    @Test
    void checkDiskRefusesASocketBelowARoot() throws IOException {
        Path root = Files.createDirectories(tmp.toRealPath().resolve("srv/instances"));
        Path sock = root.resolve("app.sock");
        try (var ch = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            ch.bind(java.net.UnixDomainSocketAddress.of(sock));
            assertEquals(List.of(new Violation("paths[0]", Rules.NOT_REGULAR)),
                    rules(root).checkDisk(List.of(sock.toString())).violations());
        }
    }

    /** Control characters and DEL are refused, a space is not; 4,096 characters (PATH_MAX) pass, one more does not. */
    @Test
    void theSyntaxBoundsAreExact() {
        for (String ok : List.of("/a b", "/" + "a".repeat(PathRules.MAX_PATH_LENGTH - 1))) {
            List<Violation> out = new ArrayList<>();
            assertTrue(PathRules.syntax(ok, "f", out), ok);
            assertEquals(List.of(), out);
        }
        for (String bad : List.of("/a\u007fb", "/a\u001fb", "/" + "a".repeat(PathRules.MAX_PATH_LENGTH))) {
            List<Violation> out = new ArrayList<>();
            assertFalse(PathRules.syntax(bad, "f", out));
            assertEquals(List.of(new Violation("f", Rules.INVALID_PATH)), out);
        }
    }

    /**
     * The socket's path is resolved again when the rules are made: a socket that now resolves to "/" has "/" itself
     * as its folder, and every source then lies in it. Refused, never an internal error.
     */
    @Test
    void aSocketThatNowResolvesToTheFileSystemRootRefusesEverySource() throws IOException {
        Path base = tmp.toRealPath();
        Path root = Files.createDirectories(base.resolve("srv/instances"));
        Path source = Files.createDirectories(root.resolve("a/data"));
        Files.createDirectories(base.resolve("run"));
        Files.createDirectories(base.resolve("elsewhere"));
        Path socket = Files.createSymbolicLink(base.resolve("run/docker.sock"), base.resolve("elsewhere/docker.sock"));
        AdminConfig c = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), socket, base.resolve("secret"),
                base.resolve("data"), Map.of("instances", root), List.of("dogama-games"), List.of("0.0.0.0"),
                new AdminConfig.PortRange(20000, 40000), new AdminConfig.Limits(1L << 30, 1_000_000_000L, 100, 10),
                false);
        assertEquals(List.of(), bind(new PathRules(c, AGENT_UID), source.toString()));
        Files.delete(socket);
        Files.createSymbolicLink(socket, Path.of("/"));
        assertEquals(List.of(new Violation("mounts[0].source", Rules.DOCKER_SOCKET)),
                bind(new PathRules(c, AGENT_UID), source.toString()));
    }

    private static List<Violation> bind(PathRules r, String source) {
        List<Violation> out = new ArrayList<>();
        r.bindSource(source, "instances", "mounts[0].source", out);
        return out;
    }
}
