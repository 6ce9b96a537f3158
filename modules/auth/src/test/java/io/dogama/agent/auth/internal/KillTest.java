package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.auth.NonceStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real agent-side process (a forked JVM running {@link ForkedNonceMain}) admits nonces from 16 threads
 * and is killed with SIGKILL in the middle; the restarted memory refuses every nonce the process
 * acknowledged. The forked JVM is started the way the registry's crash test starts its writer: the
 * test JVM's module path, the test classes patched into the module.
 */
class KillTest {
    private static final int KILL_AFTER = 400;
    private static final long CHILD_TIMEOUT_SECONDS = 60;

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
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_TIMEOUT_SECONDS);
            String line;
            // readLine blocks, but the child prints steadily; the deadline bounds a stuck child.
            while ((line = in.readLine()) != null) {
                if (line.startsWith("ok ")) {
                    acknowledged.add(line.substring(3));
                    if (acknowledged.size() >= killAfter) {
                        // SIGKILL while the child keeps admitting: no shutdown hook, no close, no flush.
                        assertTrue(p.toHandle().destroyForcibly(), "could not kill the child");
                        break;
                    }
                } else if (line.startsWith("refused")) {
                    fail("the child was refused before the kill: " + line + " " + Files.readString(stderr));
                }
                if (System.nanoTime() > deadline) {
                    fail("the child did not reach " + killAfter + " admissions in time");
                }
            }
            if (acknowledged.size() < killAfter) {
                fail("the child died before " + killAfter + " admissions: " + Files.readString(stderr));
            }
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the killed child did not exit");
            // Lines printed between our read and its death were acknowledged too.
            while ((line = in.readLine()) != null) {
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

    private static ProcessBuilder command(String... args) {
        return ForkedNonceMain.command(List.of("-Xmx128m"), args);
    }
}
