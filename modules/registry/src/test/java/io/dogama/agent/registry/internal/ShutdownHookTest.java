package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        Path data = Files.createDirectory(dir.resolve("data"));
        ForkedJvm.Finished f = ForkedJvm.run(ForkedJvm.command(List.of(), true, "library-hooks", data.toString(), how),
                dir.resolve("forked.log"));
        List<String> lines = f.output().lines().toList();
        assertEquals(0, f.status(), f.output());
        assertTrue(lines.contains("read after the library's hooks: Found"), f.output());
        assertTrue(lines.contains("clean marker: true"), f.output());
    }
}
