package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stop signal runs every shutdown hook at once: the agent's, which closes the registry after the
 * requests in flight, and the ones libraries registered. Chronicle registers one that closes every map
 * it opened, which would close (and unmap) the registry's map under an operation still in flight and
 * before the agent's close: that operation fails, and the close that follows must not be the one that
 * decides whether the file was left clean. The map is the registry's to close, alone.
 */
class ShutdownHookTest {
    @TempDir
    Path dir;

    @Test
    void chroniclesShutdownHooksLeaveTheMapToTheRegistry() throws Exception {
        runHooks("new");
    }

    /** The map's header of an earlier build asks for Chronicle's hook; it must not get it either. */
    @Test
    void aRegistryMadeByAnEarlierBuildIsLeftToTheRegistryToo() throws Exception {
        runHooks("made-by-an-earlier-build");
    }

    private void runHooks(String how) throws Exception {
        Process p = ForkedJvm.command(List.of(), true, "library-hooks", dir.toString(), how)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> lines;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            lines = out.lines().toList();
        } finally {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertEquals(0, p.exitValue(), lines.toString());
        assertTrue(lines.contains("read after the library's hooks: Found"), lines.toString());
        assertTrue(lines.contains("clean marker: true"), lines.toString());
    }
}
