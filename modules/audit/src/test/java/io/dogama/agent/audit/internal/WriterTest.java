package io.dogama.agent.audit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.audit.AuditEvent;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
     * A caller writes its own line on an interruptible channel; an interrupted caller (the server's forced stop
     * interrupts request threads) must not close the log for every later line. Its line is written, the
     * interrupt is kept for the caller, and later lines from others are written too, in one chain.
     */
    @Test
    void anInterruptedCallerDoesNotCloseTheLog() throws Exception {
        try (Writer w = Writer.open(dir, 1 << 20, new byte[32], Clock.systemUTC())) {
            // The writer thread idle, so that this caller writes its line itself (a waiting caller that is
            // interrupted gives up, as before, and never touches the file).
            awaitWriterThreadIdle();
            Thread.currentThread().interrupt();
            boolean written;
            try {
                written = w.writeDurably(event(1), 0, Duration.ofSeconds(30));
            } finally {
                assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            }
            assertTrue(written);
            var otherWrote = new AtomicBoolean();
            Thread other = Thread.ofVirtual().start(() -> otherWrote.set(w.writeDurably(event(2), 0, Duration.ofSeconds(30))));
            other.join(Duration.ofSeconds(30));
            assertFalse(other.isAlive());
            assertTrue(otherWrote.get(), "a later caller's line is written");
            assertTrue(w.writeDurably(event(3), 0, Duration.ofSeconds(30)));
            assertEquals(3, w.lastSeq());
            assertTrue(w.healthy());
        }
        try (var lines = Files.lines(Segments.file(dir, 1))) {
            assertEquals(3, lines.count());
        }
    }

    /**
     * A dangling link planted where the next file goes: a rotation that followed it would create the file it names,
     * wherever the agent may (root's in a host install), and write the log there. The rotation fails instead (the
     * line is refused, as on a file system without inodes), nothing is made, and once the link is gone it goes on.
     */
    @Test
    void aRotationNeverCreatesAFileThroughALinkInTheNextFilesPlace() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("outside")).resolve("made-by-the-agent");
        try (Writer w = Writer.open(dir, 4096, new byte[32], Clock.systemUTC())) {
            Path planted = Files.createSymbolicLink(Segments.file(dir, 2), elsewhere); // (the start refuses it)
            int i = 0;
            while (w.writeDurably(event(i), 0, Duration.ofSeconds(30))) {
                i++;
                assertTrue(i < 100, "4 KiB never filled: no rotation");
            }
            assertFalse(Files.exists(elsewhere, LinkOption.NOFOLLOW_LINKS), "nothing made through the link");
            assertFalse(w.healthy());
            Files.delete(planted);
            assertTrue(w.writeDurably(event(i), 0, Duration.ofSeconds(30)), "written once the link is gone");
            assertEquals(i + 1, w.lastSeq());
        }
        assertTrue(Files.isRegularFile(Segments.file(dir, 2), LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(elsewhere, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * The next file exists and holds lines (not an empty one an earlier rotation left): never written into, the line
     * refused; an empty one is taken over.
     */
    @Test
    void aRotationNeverWritesIntoANextFileThatHoldsLines() throws Exception {
        try (Writer w = Writer.open(dir, 4096, new byte[32], Clock.systemUTC())) {
            Files.writeString(Segments.file(dir, 2), "someone's\n");
            int i = 0;
            while (w.writeDurably(event(i), 0, Duration.ofSeconds(30))) {
                i++;
                assertTrue(i < 100, "4 KiB never filled: no rotation");
            }
            assertEquals("someone's\n", Files.readString(Segments.file(dir, 2)), "left as it was");
            Files.delete(Segments.file(dir, 2));
            Files.createFile(Segments.file(dir, 2));
            assertTrue(w.writeDurably(event(i), 0, Duration.ofSeconds(30)), "an empty one is taken over");
        }
        try (var lines = Files.lines(Segments.file(dir, 2))) {
            assertEquals(1, lines.count());
        }
    }

    /**
     * A write that fails halfway, and the truncate meant to cut its half line off fails too: the next line must not
     * be written after those bytes (it would be glued to them, and verify would call the log changed there, for
     * good). The half line is cut off first; the chain goes on as if the failed line had never been.
     */
    @Test
    void aLineAfterAFailedWriteWhoseTruncateFailedIsNotGluedToIt() throws Exception {
        byte[] key = new byte[32];
        AtomicInteger writes = new AtomicInteger();
        try (Writer w = Writer.open(dir, 1 << 20, key, Clock.systemUTC(), ch -> new FaultyChannel(ch, writes, 2))) {
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)));
            assertFalse(w.writeDurably(event(2), 0, Duration.ofSeconds(30)), "its write failed");
            assertFalse(w.healthy());
            assertTrue(w.writeDurably(event(3), 0, Duration.ofSeconds(30)), "the next one is written");
            assertEquals(2, w.lastSeq());
        }
        assertEquals(new io.dogama.agent.audit.Verification.Intact(1, 2, 2), Verifier.verify(dir, key));
    }

    /**
     * A sync that fails stops the log: no later line is acknowledged. Linux may mark the pages whose writeback failed as
     * clean, so a later sync succeeds without them: a line acknowledged then followed lines the disk may never have
     * got, and after a reboot verify called the log changed there with no tampering (session 41's reviews). The line
     * whose sync failed is left as it is (cutting it off and writing its sequence number again would fool a shipper
     * that read it); the next start reads the log back as the disk holds it.
     */
    @Test
    void aFailedSyncStopsTheLog() throws Exception {
        byte[] key = new byte[32];
        AtomicBoolean failForce = new AtomicBoolean();
        try (Writer w = Writer.open(dir, 1 << 20, key, Clock.systemUTC(),
                ch -> new FaultyChannel(ch, new AtomicInteger(), 0, failForce))) {
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)));
            failForce.set(true);
            assertFalse(w.writeDurably(event(2), 0, Duration.ofSeconds(30)), "its sync failed");
            assertFalse(w.writeDurably(event(3), 0, Duration.ofSeconds(30)), "the log takes no more lines");
            assertFalse(w.healthy());
            assertEquals(2, w.lastSeq());
        }
        String log = Files.readString(Segments.file(dir, 1));
        assertFalse(log.contains("\"mc-3\""), log);
        assertEquals(new io.dogama.agent.audit.Verification.Intact(1, 2, 2), Verifier.verify(dir, key));
        // A restart writes again, after what the disk holds.
        try (Writer w = Writer.open(dir, 1 << 20, key, Clock.systemUTC())) {
            assertTrue(w.writeDurably(event(4), 0, Duration.ofSeconds(30)));
            assertEquals(3, w.lastSeq());
        }
    }

    /** @return the size of one line of {@link #event}, written to a log of its own */
    private long lineSize(byte[] key) throws Exception {
        Path probe = Files.createDirectory(dir.resolve("probe"));
        try (Writer w = Writer.open(probe, 1 << 20, key, Clock.systemUTC())) {
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)));
        }
        return Files.size(Segments.file(probe, 1));
    }

    /** The force of a full file before the log rotates fails the same way: the log stops. */
    @Test
    void aFailedForceBeforeARotationStopsTheLog() throws Exception {
        byte[] key = new byte[32];
        long line = lineSize(key);
        Path log = Files.createDirectory(dir.resolve("log"));
        AtomicBoolean failForce = new AtomicBoolean();
        // Two lines fit, the third rotates (lines differ by a few bytes: their times).
        try (Writer w = Writer.open(log, 2 * line + line / 2, key, Clock.systemUTC(),
                ch -> new FaultyChannel(ch, new AtomicInteger(), 0, failForce))) {
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)));
            assertTrue(w.writeDurably(event(2), 0, Duration.ofSeconds(30)));
            failForce.set(true);
            assertFalse(w.writeDurably(event(3), 0, Duration.ofSeconds(30)), "the force before the rotation failed");
            assertFalse(w.writeDurably(event(4), 0, Duration.ofSeconds(30)), "the log takes no more lines");
            assertFalse(w.healthy());
        }
        assertFalse(Files.exists(Segments.file(log, 2)), "no rotation after the failed force");
    }

    /**
     * An interrupt that closes the channel during the force before a rotation is not a disk that failed: the file is
     * opened again, the rotation done, and the log goes on (the review of the first version: it stopped for good and
     * still called itself writable).
     */
    @Test
    void anInterruptDuringTheForceBeforeARotationDoesNotStopTheLog() throws Exception {
        byte[] key = new byte[32];
        long line = lineSize(key);
        Path log = Files.createDirectory(dir.resolve("log"));
        try (Writer w = Writer.open(log, 2 * line + line / 2, key, Clock.systemUTC())) {
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)));
            assertTrue(w.writeDurably(event(2), 0, Duration.ofSeconds(30)));
            Thread.currentThread().interrupt(); // this caller writes the line that rotates, with an interrupt pending
            try {
                w.writeDurably(event(3), 0, Duration.ofSeconds(30));
            } finally {
                Thread.interrupted();
            }
            assertTrue(w.writeDurably(event(4), 0, Duration.ofSeconds(30)), "the log goes on");
            assertTrue(w.healthy());
        }
        assertTrue(Files.exists(Segments.file(log, 2)), "rotated");
    }

    /** After a failed force, a refusal's line (nobody waits for it) is not written, and it is counted as dropped. */
    @Test
    void refusalsAfterAFailedForceAreCountedAsDropped() throws Exception {
        AtomicBoolean failForce = new AtomicBoolean();
        try (Writer w = Writer.open(dir, 1 << 20, new byte[32], Clock.systemUTC(),
                ch -> new FaultyChannel(ch, new AtomicInteger(), 0, failForce))) {
            failForce.set(true);
            assertFalse(w.writeDurably(event(1), 0, Duration.ofSeconds(30)), "its sync failed");
            long before = w.dropped();
            for (int i = 0; i < 5; i++) {
                w.offer(event(10 + i), 0);
            }
            assertFalse(w.writeDurably(event(2), 0, Duration.ofSeconds(30)), "written after the refusals, refused");
            assertEquals(before + 5, w.dropped());
        }
    }

    private static void awaitWriterThreadIdle() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Thread writer = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("dogama-audit-writer")).findFirst().orElse(null);
            if (writer != null && writer.getState() == Thread.State.TIMED_WAITING) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the writer thread is not idle after 30 s");
            Thread.onSpinWait();
        }
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

    /**
     * {@link Writer#SYNC_INTERVAL}: a line nobody waits for is synced within about that long, also while more keep
     * coming. The thread synced only when a wake found nothing to write, and a refusal arriving within every
     * interval (one a second is far below what any peer may cause) kept every line unsynced: a power cut then lost
     * the refusals of an attack in progress. Each refusal is offered once the one before it is written and the writer
     * waits again, so that every wake of the writer finds work; the test ends at the first sync, and fails if none came
     * within five intervals.
     */
    @Test
    void bestEffortLinesAreSyncedWithinTheIntervalWhileMoreKeepComing() throws Exception {
        try (Writer w = Writer.open(dir, 1 << 20, new byte[32], Clock.systemUTC())) {
            AuditEvent refusal = AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").outcome("unauthenticated").status(401)
                    .peer("10.0.0.5:1").build();
            long before = w.syncs();
            long deadline = System.nanoTime() + 5 * Writer.SYNC_INTERVAL.toNanos();
            while (w.syncs() == before && System.nanoTime() < deadline) {
                long seq = w.lastSeq();
                assertTrue(w.offer(refusal, 0));
                // Bounded: until it is written and the writer is parked again, waiting for the next one.
                while ((w.lastSeq() == seq || !writerWaits()) && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
            assertTrue(w.syncs() > before, "no sync in five intervals of refusals arriving one after the other");
        }
    }

    /**
     * Refusals can be caused by anyone on the network, and the rate limit only slows them (about 1.5 GB a day at 50
     * lines a second). Below the reserve of free space, a line nobody waits for is counted and dropped, so that what
     * must be written (a mutation's lines, the registry and the nonce journal beside the log) still finds room; a
     * mutation's line is written as before. Once there is room again, refusals are written again.
     */
    @Test
    void belowTheReserveOfFreeSpaceRefusalsAreCountedNotWrittenButAMutationsLineIs() throws Exception {
        long total = 10 * Writer.RESERVE_BYTES; // reserve: the whole RESERVE_BYTES
        AtomicLong free = new AtomicLong(Writer.RESERVE_BYTES - 1);
        AuditEvent refusal = AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").outcome("unauthenticated").status(401)
                .peer("10.0.0.5:1").build();
        try (Writer w = Writer.open(dir, 1 << 20, new byte[32], Clock.systemUTC(), free::get, total)) {
            assertFalse(w.offer(refusal, 0), "a refusal below the reserve");
            assertEquals(1, w.dropped());
            assertTrue(w.writeDurably(event(1), 0, Duration.ofSeconds(30)), "a mutation's line below the reserve");
            assertEquals(1, w.lastSeq(), "only the mutation's line was written");
            free.set(Writer.RESERVE_BYTES);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean written = false;
            while (!written && System.nanoTime() < deadline) { // the space is read again within a second
                written = w.offer(refusal, 0);
                if (!written) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
            }
            assertTrue(written, "refusals are written again once there is room");
        }
    }

    /** @return whether the log's writer thread is parked (waiting for work or the sync interval) */
    private static boolean writerWaits() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("dogama-audit-writer") && t.isAlive())
                .allMatch(t -> t.getState() == Thread.State.TIMED_WAITING);
    }

    /**
     * The start reads the log backwards to its anchored line. A run of bytes without a newline (planted by whoever
     * may write the folder while the agent is down) was read on block by block into one growing buffer, copied at
     * every block, until the heap ran out. It is handed back cut at the longest line plus one, which no audit line
     * is, and ends the file.
     */
    @Test
    void readingBackwardsHoldsNoMoreThanABlockAndALine() throws Exception {
        Path file = dir.resolve("backwards.jsonl");
        byte[] run = new byte[1 << 20];
        java.util.Arrays.fill(run, (byte) 'x');
        try (var out = Files.newOutputStream(file)) {
            out.write("first\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.write(run);
            out.write("\nlast\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        try (var ch = java.nio.channels.FileChannel.open(file)) {
            Writer.Backwards lines = new Writer.Backwards(ch);
            assertEquals("last", new String(lines.next(), java.nio.charset.StandardCharsets.UTF_8));
            byte[] cut = lines.next();
            assertEquals(Chain.MAX_LINE_BYTES + 1, cut.length, "the run, cut at the longest line plus one");
            assertEquals(null, lines.next(), "and the file ends there");
        }
    }
}
