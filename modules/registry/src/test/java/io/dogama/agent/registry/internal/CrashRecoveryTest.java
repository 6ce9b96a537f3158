package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forked JVM writes a stream of inserts and updates and is killed with SIGKILL in the middle; at the next open
 * every write it reported complete is there and verifies, and nothing it never began is.
 */
// A JVM of its own on the module path: Surefire runs it; mutation testing (a class path) leaves it out.
@Tag("forked-jvm")
class CrashRecoveryTest {
    /** The writer's instance limit, far above what it writes before the kill. */
    static final int LIMIT = 5000;
    /** The first round kills after this many reported writes, later rounds later (other map layouts). */
    private static final int KILL_AFTER = 50;
    private static final int ROUNDS = 3;
    private static final long CHILD_TIMEOUT_SECONDS = 120;
    /** Stands for the end of the child's output among its lines, none of which holds a line break. */
    private static final String END = "\n";

    @TempDir
    Path tmp;

    @Test
    void everyCompletedWriteSurvivesSigkill() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Path data = Files.createDirectory(tmp.resolve("data" + round));
            int last = killWriterMidStream(data, tmp.resolve("child" + round + ".err"), KILL_AFTER + 97 * round);
            try (Registry r = Registry.open(data, LIMIT)) {
                for (int k = 1; k < last; k++) {
                    Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get(ForkedRegistryMain.id(k)),
                            "round " + round + ": completed write " + k + " of " + last);
                    assertEquals(updated(k), f.record(), "record " + k);
                    assertEquals(2, f.generation(), "record " + k + " was inserted then updated once");
                }
                // The last reported insert is complete; its update belongs to the write in flight.
                Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get(ForkedRegistryMain.id(last)),
                        "round " + round + ": last completed write " + last);
                assertTrue(f.record().equals(Samples.record(ForkedRegistryMain.id(last), last))
                        || f.record().equals(updated(last)), "record " + last);
                // The write in flight may or may not have landed; nothing after it can exist.
                for (Lookup l : r.all()) {
                    int k = Integer.parseInt(l.instanceId().substring("inst-".length()));
                    assertTrue(k <= last + 1, "record " + k + " was never written");
                }
            }
        }
    }

    private static InstanceRecord updated(int k) {
        return Samples.record(ForkedRegistryMain.id(k), k).withStep(Optional.of("updated"));
    }

    /** @return the last k the child reported as written before it died */
    private static int killWriterMidStream(Path data, Path stderr, int killAfter) throws Exception {
        Process p = ForkedJvm.command(List.of(), "write", data.toString())
                .redirectError(stderr.toFile()).start();
        int last = 0;
        try {
            // A reader thread takes the lines, so the deadline bounds a child that stops printing (stuck in
            // a lock or an fsync) as well as a slow one: a readLine here would block past it.
            BlockingQueue<String> lines = lines(p);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String waiting = "the writer did not reach " + killAfter + " writes";
            for (String line = next(lines, deadline, p, stderr, waiting); !line.equals(END);
                    line = next(lines, deadline, p, stderr, waiting)) {
                if (line.startsWith("wrote ")) {
                    last = Integer.parseInt(line.substring(6));
                    if (last >= killAfter) {
                        // SIGKILL while the child keeps writing: no shutdown hook, no close, no flush. Through
                        // the handle, because Process.destroyForcibly also closes our end of its stdout.
                        assertTrue(p.toHandle().destroyForcibly(), "could not kill the writer");
                        break;
                    }
                } else if (line.equals("limit reached")) {
                    fail("the writer finished before it was killed");
                }
            }
            if (last < killAfter) {
                fail("the writer died before " + killAfter + " writes: " + Files.readString(stderr));
            }
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the killed writer did not exit");
            // Lines the child printed between our read and its death still count as completed writes.
            long drained = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String ending = "the killed writer's output did not end";
            for (String line = next(lines, drained, p, stderr, ending); !line.equals(END);
                    line = next(lines, drained, p, stderr, ending)) {
                if (line.startsWith("wrote ")) {
                    last = Integer.parseInt(line.substring(6));
                }
            }
        } finally {
            p.destroyForcibly();
        }
        assertEquals(137, p.exitValue(), "the writer must have died of SIGKILL");
        return last;
    }

    /** @return the child's stdout lines, then {@link #END}, read on a daemon thread */
    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("crash-test-child-stdout").start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
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
     * @return the child's next line, or {@link #END}; if none comes before the deadline, kills the child and
     *         fails with {@code waiting} and its stderr
     */
    private static String next(BlockingQueue<String> lines, long deadline, Process p, Path stderr, String waiting)
            throws InterruptedException, IOException {
        String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
            p.destroyForcibly();
            fail(waiting + " in " + CHILD_TIMEOUT_SECONDS + " s: " + Files.readString(stderr));
        }
        return line;
    }
}
