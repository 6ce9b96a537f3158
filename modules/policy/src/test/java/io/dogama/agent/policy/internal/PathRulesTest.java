package io.dogama.agent.policy.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.policy.AdminConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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
}
