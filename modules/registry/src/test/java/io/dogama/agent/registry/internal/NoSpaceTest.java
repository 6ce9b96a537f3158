package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryFullException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write the file system has no room for, on a real tmpfs: refused as full, what it had appended cut off again (the
 * next write follows the last whole frame), the memory unchanged, and the same write stored once room returns. Needs
 * root (to mount); CI runs as root, and this test fails rather than skips without it.
 */
class NoSpaceTest {
    private static final long COMMAND_TIMEOUT_SECONDS = 30;

    @TempDir
    Path tmp;

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            assertTrue(p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS), List.of(cmd) + " did not end");
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), List.of(cmd) + " failed (this test needs root)");
    }

    @Test
    void aWriteWithoutRoomIsRefusedAsFullCutOffAndStoredOnceRoomReturns() throws Exception {
        Path data = Files.createDirectory(tmp.resolve("data"));
        run("mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", data.toString());
        try {
            Path file = data.resolve(LogRegistry.FILE);
            Path filler = data.resolve("filler");
            try (Registry r = Registry.open(data, 10)) {
                assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("alpha-1", 1)));
                // Room for about a third of the next frame: the write gets some of it out before it fails.
                long leave = 96 * 1024;
                try (OutputStream out = Files.newOutputStream(filler)) {
                    out.write(new byte[(int) (Files.getFileStore(data).getUsableSpace() - leave)]);
                }
                long before = Files.size(file);
                RegistryFullException e = assertThrows(RegistryFullException.class,
                        () -> r.insert(ForkedRegistryMain.big(1)));
                assertTrue(e.getMessage().contains("no space"), e.getMessage());
                assertEquals(before, Files.size(file), "what the failed write appended is cut off again");
                assertInstanceOf(Lookup.Absent.class, r.get(ForkedRegistryMain.BIG));
                assertInstanceOf(Lookup.Found.class, r.get("alpha-1"));
                assertInstanceOf(CasResult.Stored.class, r.replace(1, Samples.record("alpha-1", 2)),
                        "a write that fits still works");
                Files.delete(filler);
                assertInstanceOf(CasResult.Stored.class, r.insert(ForkedRegistryMain.big(1)));
            }
            try (Registry r = Registry.open(data, 10)) {
                assertEquals(new Lookup.Found(Samples.record("alpha-1", 2), 2), r.get("alpha-1"));
                assertEquals(new Lookup.Found(ForkedRegistryMain.big(1), 1), r.get(ForkedRegistryMain.BIG));
            }
        } finally {
            run("umount", data.toString());
        }
    }
}
