package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host clock steps forward by more than the retention and back again, with restarts in between: a
 * replay of a nonce the journal forgot while the clock was ahead. The journal drops, at a start, the lines
 * that expired before it, and deletes, while running, the segments whose every line expired; judged by a
 * clock 90 s ahead, a nonce admitted a moment ago has expired and goes. Once the clock is back, a
 * restarted memory took the captured request for a new one: its timestamp is within the window again, and
 * the journal's headers still said the memory began before it. Now every header carries at least the
 * earliest timestamp whose nonces are all still in the journal, so the replay is refused as before the
 * memory.
 */
class ClockStepTest {
    private static final Instant T0 = Instant.parse("2026-12-01T19:04:05Z");
    private static final String CAPTURED = "nonce-captured-000000001";
    /** More than the retention: the captured nonce's line has expired by this clock. */
    private static final Duration AHEAD = NonceStore.RETENTION.plusSeconds(30);

    @TempDir
    Path dir;

    private NonceMemory open(Instant now) throws Exception {
        return NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void aStartWhileTheClockIsAheadForgetsNothingAReplayCanUseOnceItIsBack() throws Exception {
        try (NonceMemory m = open(T0)) {
            assertEquals(Admission.ADMITTED, m.admit(CAPTURED, T0));
        }
        try (NonceMemory ahead = open(T0.plus(AHEAD))) {
            assertEquals(0, ahead.size(), "the captured nonce's line expired by this clock and was dropped");
        }
        TestClock clock = new TestClock(T0.plusSeconds(5));
        try (NonceMemory back = NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, clock)) {
            assertEquals(Admission.BEFORE_MEMORY, back.admit(CAPTURED, T0), "the replay");
            // The price: until the clock is back where the memory's knowledge begins (the clock of the start
            // ahead, less the retention), fresh requests are refused too, and clients retry.
            Instant forgotten = T0.plus(AHEAD).minus(NonceStore.RETENTION);
            assertEquals(Admission.BEFORE_MEMORY, back.admit("nonce-fresh-00000000001", T0.plusSeconds(5)));
            clock.set(forgotten);
            assertEquals(Admission.ADMITTED, back.admit("nonce-fresh-00000000001", forgotten));
        }
    }

    @Test
    void aSegmentDeletedWhileTheClockIsAheadForgetsNothingAReplayCanUseOnceItIsBack() throws Exception {
        TestClock clock = new TestClock(T0);
        try (NonceMemory m = NonceMemory.persistent(dir, 1000, NonceStore.RETENTION, clock)) {
            assertEquals(Admission.ADMITTED, m.admit(CAPTURED, T0));
            clock.set(T0.plus(AHEAD));
            // The next append starts a new segment and deletes the start segment, whose only line expired.
            assertEquals(Admission.ADMITTED, m.admit("nonce-ahead-00000000001", T0.plus(AHEAD)));
            assertEquals(1, segments(dir), "the start segment was deleted");
        }
        try (NonceMemory back = open(T0.plusSeconds(5))) {
            assertEquals(Admission.BEFORE_MEMORY, back.admit(CAPTURED, T0), "the replay");
        }
    }

    private static long segments(Path dir) throws Exception {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("nonces\\.journal(\\.[0-9]+)?")).count();
        }
    }
}
