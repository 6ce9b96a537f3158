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

    private static List<Violation> bind(PathRules r, String source) {
        List<Violation> out = new ArrayList<>();
        r.bindSource(source, "instances", "mounts[0].source", out);
        return out;
    }
}
