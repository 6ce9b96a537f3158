package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 9 (1.1): every file the registry creates in the data directory is 0600. The registry
 * runs in a forked JVM whose umask is 000, so a file created without an explicit mode would come out
 * 0666 (0644 under the usual umask): the modes seen here are the ones the code asks for.
 */
// A JVM of its own on the module path: Surefire runs it; mutation testing (a class path) leaves it out.
@Tag("forked-jvm")
class FileModesTest {
    private static final String OWNER_ONLY = "rw-------";
    /** How long the forked registry may take to open and to close: a JVM start and a map's creation. */
    private static final long CHILD_TIMEOUT_SECONDS = 120;
    /** Stands for the end of the child's output among its lines, none of which holds a line break. */
    private static final String END = "\n";

    @TempDir
    Path dir;
    /** The forked JVM's output: beside, never inside, the registry's folder. */
    @TempDir
    Path logs;

    @Test
    void everyFileOfANewRegistryIs0600OpenAndClosed() throws Exception {
        Map<String, String> whileOpen = openAndClose();
        assertEquals(List.of(LogRegistry.FILE, LogRegistry.KEY_FILE, LogRegistry.LOCK_FILE),
                List.copyOf(whileOpen.keySet()), "files of an open registry");
        whileOpen.forEach((name, mode) -> assertEquals(OWNER_ONLY, mode, name + " while open"));
        Map<String, String> closed = modes();
        assertEquals(whileOpen.keySet(), closed.keySet(), "files of a closed registry");
        closed.forEach((name, mode) -> assertEquals(OWNER_ONLY, mode, name + " after close"));
    }

    /** The file a compaction writes (under a temporary name, then renamed) is made 0600 too. */
    @Test
    void theFileACompactionWritesIs0600() throws Exception {
        Path log = logs.resolve("compact.out");
        Process p = umask000("compact").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the forked registry did not finish");
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("compacted\n") && !out.contains("not compacted"), out);
        Map<String, String> modes = modes();
        assertEquals(List.of(LogRegistry.FILE, LogRegistry.KEY_FILE, LogRegistry.LOCK_FILE), List.copyOf(modes.keySet()));
        modes.forEach((name, mode) -> assertEquals(OWNER_ONLY, mode, name + " after a compaction"));
    }

    /** The forked registry in {@code mode} on this test's folder, with umask 000. */
    private ProcessBuilder umask000(String mode) {
        ProcessBuilder java = ForkedJvm.command(List.of(), mode, dir.toString());
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", "umask 000 && exec \"$@\"", "sh"));
        cmd.addAll(java.command());
        return new ProcessBuilder(cmd);
    }

    /** Runs {@code open-close} in a JVM with umask 000; returns the modes seen while it was open. */
    private Map<String, String> openAndClose() throws Exception {
        List<String> cmd = umask000("open-close").command();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (OutputStream in = p.getOutputStream()) {
            // A reader thread takes the lines, so the deadline bounds a child that deadlocks and prints nothing.
            BlockingQueue<String> lines = lines(p);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            assertEquals("open", readUntil(lines, deadline, p, "open"));
            Map<String, String> whileOpen = modes();
            in.write('\n');
            in.flush();
            assertEquals("closed", readUntil(lines, deadline, p, "closed"));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the forked registry did not exit");
            assertEquals(0, p.exitValue());
            return whileOpen;
        } finally {
            p.destroyForcibly();
        }
    }

    /** @return the child's stdout lines, then {@link #END}, read on a daemon thread */
    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("file-modes-child-stdout").start(() -> {
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // Process.destroyForcibly closed our end of the pipe: the output ends here just the same.
            } finally {
                lines.add(END);
            }
        });
        return lines;
    }

    /**
     * @return {@code wanted} once the child printed it, "end of output" if its output ended first; if neither
     *         happens before the deadline, kills the child and fails
     */
    private static String readUntil(BlockingQueue<String> lines, long deadline, Process p, String wanted)
            throws InterruptedException {
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                p.destroyForcibly();
                fail("the forked registry did not print \"" + wanted + "\" in " + CHILD_TIMEOUT_SECONDS
                        + " s (its stderr is in the test output)");
            } else if (line.equals(END)) {
                return "end of output";
            } else if (line.equals(wanted)) {
                return line;
            }
        }
    }

    private Map<String, String> modes() throws IOException {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                modes.put(f.getFileName().toString(), PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)));
            }
        }
        return modes;
    }
}
