package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.registry.Registry;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15: the registry's file has every block it will write into from the start, so that a full
 * data directory never meets a store to the mapping (a SIGBUS mid-write) but, at worst, the open.
 */
class ReserveTest {
    @TempDir
    Path dir;

    /** @return the bytes the file system has given the file ({@code stat %b} x 512) */
    private static long allocated(Path file) throws IOException, InterruptedException {
        // stat's output goes to a file: draining a pipe to its end would wait for a hung stat without a bound.
        Path log = Files.createTempFile("dogama-stat-", ".out");
        try {
            Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectOutput(log.toFile()).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("stat -c %b " + file + " did not finish in 30 s:\n"
                        + new String(Files.readAllBytes(log), StandardCharsets.US_ASCII));
            }
            String out = new String(Files.readAllBytes(log), StandardCharsets.US_ASCII).strip();
            return Long.parseLong(out) * 512;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    @Test
    void aSparseFileGetsEveryBlockAndKeepsItsContent() throws Exception {
        Path file = dir.resolve("sparse");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(1024 * 1024);
            f.seek(3 * 4096 + 7);
            f.write(42);
        }
        byte[] before = Files.readAllBytes(file);
        assertTrue(allocated(file) < 1024 * 1024, "the test needs a file system with sparse files");
        ChronicleRegistry.reserve(file);
        assertTrue(allocated(file) >= 1024 * 1024, "blocks: " + allocated(file));
        assertArrayEquals(before, Files.readAllBytes(file), "content unchanged");
    }

    @Test
    void anOpenedRegistrysMapHasEveryBlock() throws Exception {
        try (Registry r = Registry.open(dir, 50)) {
            assertEquals(50, r.maxInstances());
        }
        Path map = dir.resolve(ChronicleRegistry.MAP_FILE);
        long size = Files.size(map);
        assertTrue(allocated(map) >= size - 4095, "size " + size + ", allocated " + allocated(map));
    }
}
