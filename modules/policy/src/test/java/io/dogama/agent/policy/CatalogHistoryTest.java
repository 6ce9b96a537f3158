package io.dogama.agent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SPEC 7: the build fails if a released template file changed without a new version. {@link CatalogTest} holds the
 * files to the lock in the same tree, so an edit of a released file together with its lock line passed (session 41's
 * review). Here the lock is held to its own history: a line, once committed, stays as it was in every later version,
 * so a released file can change only by breaking a committed line.
 */
class CatalogHistoryTest {
    private static final String LOCK = "catalog/catalog.lock";

    @Test
    void everyCommittedLockLineIsStillInTheLock() throws Exception {
        Path repo = CatalogTest.repositoryCatalog().toRealPath().getParent();
        // A source tree without its history (an archive) has nothing to compare with.
        assumeTrue(Files.exists(repo.resolve(".git")), "not a git checkout");
        List<String> now = lines(Files.readString(repo.resolve(LOCK), StandardCharsets.UTF_8));
        List<String> commits = lines(git(repo, "log", "--format=%H", "--", LOCK));
        assertTrue(!commits.isEmpty(), "the lock has a history");
        List<String> problems = new ArrayList<>();
        for (String commit : commits) {
            problems.addAll(dropped(lines(git(repo, "show", commit + ":" + LOCK)), now, commit));
        }
        assertEquals(List.of(), problems);
    }

    /** The check itself, on the changes it must refuse and the one it must let through. */
    @Test
    void aChangedOrRemovedLineIsNamedAndAnAppendedOneIsNot() {
        List<String> committed = List.of("# comment", "aaaa  demo-http/1.0.0.json", "bbbb  other/1.0.0.json");
        assertEquals(List.of(), dropped(committed,
                List.of("aaaa  demo-http/1.0.0.json", "bbbb  other/1.0.0.json", "cccc  demo-http/1.1.0.json"), "c1"));
        assertEquals(List.of("c1: committed line 'aaaa  demo-http/1.0.0.json' is gone"),
                dropped(committed, List.of("dddd  demo-http/1.0.0.json", "bbbb  other/1.0.0.json"), "c1"));
        assertEquals(List.of("c1: committed line 'bbbb  other/1.0.0.json' is gone"),
                dropped(committed, List.of("aaaa  demo-http/1.0.0.json"), "c1"));
    }

    /** @return the lines of {@code committed} (comments and blank lines aside) that {@code now} lacks */
    private static List<String> dropped(List<String> committed, List<String> now, String commit) {
        Set<String> present = new LinkedHashSet<>(now);
        List<String> out = new ArrayList<>();
        for (String line : committed) {
            if (!line.isBlank() && !line.startsWith("#") && !present.contains(line)) {
                out.add(commit + ": committed line '" + line + "' is gone");
            }
        }
        return out;
    }

    private static List<String> lines(String text) {
        return text.lines().toList();
    }

    private static String git(Path repo, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "git " + String.join(" ", args) + " did not end");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "git " + String.join(" ", args) + ": " + text);
        return text;
    }
}
