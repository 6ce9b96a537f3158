package io.dogama.agent.audit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.audit.AuditEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's promise to a caller of a durable write, whoever writes its line. */
class WriterTest {
    @TempDir
    Path dir;

    private static AuditEvent event(int i) {
        return AuditEvent.builder(AuditEvent.Kind.BEGIN, "POST /v1/instances").instanceId("mc-" + i).peer("10.0.0.5:1")
                .build();
    }

    /**
     * With nobody else writing, the caller writes and syncs its own line; a sync that ends after the caller's
     * deadline is reported as not in time, as a caller waiting for the writer thread would have been told.
     */
    @Test
    void aLineItsCallerSyncedAfterItsDeadlineIsNotAcknowledged() throws Exception {
        try (Writer w = Writer.open(dir, 1 << 20, new byte[32], Clock.systemUTC())) {
            assertFalse(w.writeDurably(event(1), 0, Duration.ZERO), "a write cannot take no time at all");
            assertTrue(w.writeDurably(event(2), 0, Duration.ofSeconds(30)));
            assertEquals(2, w.lastSeq(), "both lines are written; the first was only late");
        }
        try (var lines = Files.lines(Segments.file(dir, 1))) {
            assertEquals(2, lines.count());
        }
    }
}
