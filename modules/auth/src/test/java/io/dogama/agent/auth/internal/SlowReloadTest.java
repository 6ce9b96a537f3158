package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.dogama.agent.auth.NonceStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload of the nonce journal that takes its time: the clock moves on while the journal's unexpired lines
 * are chosen, read, rewritten and forced and the table is filled, as it does with a large journal on a cold
 * JVM. A line that expires meanwhile is still taken (the table's clock is the moment the lines were chosen)
 * and forgotten at the first admission, and the store opens: once, it refused to start ("a nonce that has
 * already expired cannot be admitted"), and a supervisor's restarts met the same journal until the line was
 * gone.
 */
class SlowReloadTest {
    private static final Instant T0 = Instant.parse("2026-12-01T19:04:05Z");

    @TempDir
    Path dir;

    /** A clock that moves {@code step} forward after every reading. */
    private static final class SteppingClock extends Clock {
        private Instant now;
        private final Duration step;

        SteppingClock(Instant start, Duration step) {
            this.now = start;
            this.step = step;
        }

        @Override
        public synchronized Instant instant() {
            Instant read = now;
            now = now.plus(step);
            return read;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aLineThatExpiresWhileTheJournalIsReloadedIsForgottenAndTheStoreOpens() throws Exception {
        Clock still = Clock.fixed(T0, ZoneOffset.UTC);
        try (NonceMemory first = NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, still)) {
            assertEquals(Admission.ADMITTED, first.admit("nonce-slow-reload-0001", T0));
        }
        // Half a second before the line's expiry (T0 + RETENTION) when its lines are chosen, a second later at
        // every further reading: the table is built after the line expired.
        Clock slow = new SteppingClock(T0.plus(NonceStore.RETENTION).minusMillis(500), Duration.ofSeconds(1));
        try (NonceMemory reloaded = NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, slow)) {
            // Forgotten, but never admitted again: its time is before what the memory vouches for.
            assertNotEquals(Admission.ADMITTED, reloaded.admit("nonce-slow-reload-0001", T0));
            assertEquals(0, reloaded.size());
        }
    }
}
