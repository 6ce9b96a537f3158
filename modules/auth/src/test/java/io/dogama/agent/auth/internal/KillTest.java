package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.auth.NonceStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real agent-side process (a forked JVM running {@link ForkedNonceMain}) admits nonces from 16 threads
 * and is killed with SIGKILL in the middle; the restarted memory refuses every nonce the process
 * acknowledged. The forked JVM is started the way the registry's crash test starts its writer: the
 * test JVM's module path, the test classes patched into the module.
 */
// A JVM of its own on the module path: Surefire runs it; mutation testing (a class path) leaves it out.
@Tag("forked-jvm")
class KillTest {
    private static final int KILL_AFTER = 400;
    private static final long CHILD_TIMEOUT_SECONDS = 60;
    /** Stands for the end of the child's output among its lines, none of which holds a line break. */
    private static final String END = "\n";

    @TempDir
    Path tmp;

    @Test
    void everyAcknowledgedNonceIsRefusedAfterSigkill() throws Exception {
        for (int round = 0; round < 2; round++) {
            Path data = Files.createDirectory(tmp.resolve("data" + round));
            Set<String> acknowledged = killAdmitterMidStream(data, tmp.resolve("child" + round + ".err"),
                    KILL_AFTER + 300 * round);
            try (NonceMemory restarted = NonceMemory.persistent(data, 1_000_000, NonceStore.RETENTION,
                    Clock.systemUTC())) {
                for (String nonce : acknowledged) {
                    assertEquals(Admission.REPLAYED, restarted.admit(nonce, Instant.now()),
                            "round " + round + ": acknowledged before the kill, forgotten after it: " + nonce);
                }
            }
        }
    }

    private static Set<String> killAdmitterMidStream(Path data, Path stderr, int killAfter) throws Exception {
        Process p = command("admit", data.toString(), "16").redirectError(stderr.toFile()).start();
        Set<String> acknowledged = new LinkedHashSet<>();
        try {
            // A reader thread takes the lines, so the deadline bounds a child that stops printing (stuck in
            // a lock or an fsync) as well as a slow one: a readLine here would block past it.
            BlockingQueue<String> lines = lines(p);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String waiting = "the child did not reach " + killAfter + " admissions";
            for (String line = next(lines, deadline, p, stderr, waiting); !line.equals(END);
                    line = next(lines, deadline, p, stderr, waiting)) {
                if (line.startsWith("ok ")) {
                    acknowledged.add(line.substring(3));
                    if (acknowledged.size() >= killAfter) {
                        // SIGKILL while the child keeps admitting: no shutdown hook, no close, no flush. Through
                        // the handle, because Process.destroyForcibly also closes our end of its stdout.
                        assertTrue(p.toHandle().destroyForcibly(), "could not kill the child");
                        break;
                    }
                } else if (line.startsWith("refused")) {
                    fail("the child was refused before the kill: " + line + " " + Files.readString(stderr));
                }
            }
            if (acknowledged.size() < killAfter) {
                fail("the child died before " + killAfter + " admissions: " + Files.readString(stderr));
            }
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the killed child did not exit");
            // Lines printed between our read and its death were acknowledged too: read them to the end.
            long drained = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String ending = "the killed child's output did not end";
            for (String line = next(lines, drained, p, stderr, ending); !line.equals(END);
                    line = next(lines, drained, p, stderr, ending)) {
                if (line.startsWith("ok ")) {
                    acknowledged.add(line.substring(3));
                }
            }
        } finally {
            p.destroyForcibly();
        }
        assertEquals(137, p.exitValue(), "the child must have died of SIGKILL");
        return acknowledged;
    }

    /** @return the child's stdout lines, then {@link #END}, read on a daemon thread */
    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("kill-test-child-stdout").start(() -> {
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

    private static ProcessBuilder command(String... args) {
        return ForkedNonceMain.command(List.of("-Xmx128m"), args);
    }
}
