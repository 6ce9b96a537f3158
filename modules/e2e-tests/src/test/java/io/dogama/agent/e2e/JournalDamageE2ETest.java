package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, fault campaign: the nonce journal cut mid-line while the agent is stopped. A request
 * answered before the stop (signed by a client whose clock runs 25 s ahead, the worst case inside
 * the window) is refused when replayed after the restart: the agent refuses every request
 * timestamped before its start plus the window (SPEC 3's "refuse any request timestamped before the
 * agent's start", stretched by the window). Fresh requests are served again once it has passed.
 */
class JournalDamageE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    @Test
    void aJournalCutMidLineNeverLetsAReplayThrough() {
        Wire.Signed ahead = e2e.wire().signAt("GET", "/v1/instances", null, Instant.now().plusSeconds(25),
                e2e.wire().nonce());
        assertEquals(200, ahead.send().status());
        e2e.stopAgent();
        try {
            Path journal = e2e.dataDir().resolve("nonces.journal");
            byte[] whole = Files.readAllBytes(journal);
            assertTrue(whole.length > 40 && whole[whole.length - 1] == '\n', "journal: " + whole.length + " bytes");
            Files.write(journal, Arrays.copyOf(whole, whole.length - 7));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        e2e.launchWith(RepoLayout.agentLauncher(), false);

        assertProblem(ahead.send(), 401, "stale_request");
        assertProblem(e2e.wire().get("/v1/health"), 401, "stale_request");
        // the 30 s guard ends unannounced: polled, bounded
        Poll.until(Duration.ofSeconds(45), Duration.ofMillis(500), "fresh requests served again",
                () -> Optional.of(e2e.wire().get("/v1/health").status()).filter(s -> s == 200));
        assertProblem(ahead.send(), 401, "stale_request");
    }
}
