package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/dockerd} runs as root and keeps the private engine's data root, pidfile and log in a folder
 * under the world-writable {@code /var/tmp}: a folder another user made there first must be refused, not used.
 */
class DevEngineScriptTest {
    @TempDir
    Path tmp;

    @Test
    void aFolderOthersMayWriteIsRefused() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("engine"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        String err = status(dir);
        assertTrue(err.contains("writable by group or others (mode 777): refusing to use it"), err);
    }

    @Test
    void aFolderAnotherUserOwnsIsRefused() throws Exception {
        assertEquals("root", System.getProperty("user.name"), "needs root to give the folder away: the tests run as "
                + "root (scripts/test, .ci/run); skipped, this refusal would go untested");
        Path dir = Files.createDirectory(tmp.resolve("engine"));
        UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(dir, nobody);
        String err = status(dir);
        assertTrue(err.contains("not root: refusing to use it"), err);
    }

    /** @return what {@code scripts/dockerd status} said on stderr; it must fail */
    private static String status(Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", RepoLayout.root().resolve("scripts/dockerd").toString(),
                "status");
        pb.environment().put("DOGAMA_DOCKERD_DIR", dir.toString());
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        // stderr goes to a file: draining a pipe to its end would wait for a hung script without a bound.
        Path log = Files.createTempFile("dogama-dockerd-status-", ".err");
        try {
            pb.redirectError(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("scripts/dockerd status did not end in 30 s:\n"
                        + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
            }
            String err = new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
            assertEquals(1, p.exitValue(), err);
            return err;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
