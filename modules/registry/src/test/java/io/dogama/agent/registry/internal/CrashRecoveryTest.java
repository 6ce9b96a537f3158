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
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forked JVM writes a stream of inserts and in-place updates and is killed with SIGKILL in the middle;
 * after recovery every write it reported complete is there and verifies.
 */
class CrashRecoveryTest {
    /** The writer's instance limit, far above what it writes before the kill. */
    static final int LIMIT = 5000;
    /** The first round kills after this many reported writes, later rounds later (other map layouts). */
    private static final int KILL_AFTER = 50;
    private static final int ROUNDS = 3;
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @TempDir
    Path tmp;

    @Test
    void everyCompletedWriteSurvivesSigkill() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Path data = Files.createDirectory(tmp.resolve("data" + round));
            int last = killWriterMidStream(data, tmp.resolve("child" + round + ".err"), KILL_AFTER + 97 * round);
            assertFalse(Files.exists(data.resolve(ChronicleRegistry.CLEAN_FILE)),
                    "a killed writer must not leave the clean marker (recovery would be skipped)");
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
        Process p = ForkedJvm.command(List.of(), true, "write", data.toString())
                .redirectError(stderr.toFile()).start();
        int last = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String line;
            // readLine blocks, but the child prints steadily; the deadline bounds a stuck child.
            while ((line = in.readLine()) != null) {
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
                if (System.nanoTime() > deadline) {
                    fail("the writer did not reach " + killAfter + " writes in time");
                }
            }
            if (last < killAfter) {
                fail("the writer died before " + killAfter + " writes: " + Files.readString(stderr));
            }
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the killed writer did not exit");
            // Lines the child printed between our read and its death still count as completed writes.
            while ((line = in.readLine()) != null) {
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
}
