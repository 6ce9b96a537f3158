package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.TestClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15: a journal write that left nothing behind (a full data directory; the real disk cuts a
 * partial write back, which FullDiskE2ETest shows on a real tmpfs) refuses its requests as busy and
 * does not break the memory: once the disk takes writes again, requests are admitted, durably.
 */
class NoSpaceTest {
    private static final Instant T0 = Instant.parse("2026-12-01T19:04:05Z");

    @TempDir
    Path dir;

    /**
     * The real disk, except that appends fail as a full file system does while {@link #full} is set, and
     * no file can be created while {@link #noInodes} is (a file system out of inodes: appends still work).
     */
    private static final class FillableDisk implements JournalDisk {
        volatile boolean full;
        volatile boolean noInodes;

        @Override
        public Appender append(Path file) throws IOException {
            Appender real = JournalDisk.REAL.append(file);
            return new Appender() {
                @Override
                public void write(ByteBuffer bytes) throws IOException {
                    if (full) {
                        throw new NotWritten(new IOException("No space left on device"));
                    }
                    real.write(bytes);
                }

                @Override
                public void force() throws IOException {
                    real.force();
                }

                @Override
                public void close() throws IOException {
                    real.close();
                }
            };
        }

        @Override
        public void createForced(Path file, Content content) throws IOException {
            if (noInodes) {
                throw new FileSystemException(file.toString(), null, "No space left on device");
            }
            JournalDisk.REAL.createForced(file, content);
        }

        @Override
        public void replace(Path from, Path to) throws IOException {
            JournalDisk.REAL.replace(from, to);
        }

        @Override
        public void forceDirectory(Path d) throws IOException {
            JournalDisk.REAL.forceDirectory(d);
        }

        @Override
        public void delete(Path file) throws IOException {
            JournalDisk.REAL.delete(file);
        }
    }

    private NonceMemory memory(TestClock clock, FillableDisk disk) throws Exception {
        return NonceMemory.persistent(dir, 100, NonceStore.RETENTION, Duration.ofSeconds(5), clock, disk,
                NonceMemory.MAX_PENDING_BYTES);
    }

    @Test
    void aFullDiskRefusesAsBusyAndTheJournalGoesOnWhenSpaceReturns() throws Exception {
        TestClock clock = new TestClock(T0);
        FillableDisk disk = new FillableDisk();
        try (NonceMemory m = memory(clock, disk)) {
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000001", T0));
            disk.full = true;
            assertEquals(Admission.STALLED, m.admit("nonce-0000000000000002", T0));
            assertEquals(Admission.STALLED, m.admit("nonce-0000000000000003", T0));
            disk.full = false;
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000004", T0), "not broken for good");
            assertEquals(Admission.REPLAYED, m.admit("nonce-0000000000000002", T0), "a refused nonce stays spent");
        }
        String journal = Files.readString(dir.resolve(NonceJournal.FILE));
        assertEquals(3, journal.lines().count(), "the header and the two admitted nonces: " + journal);
    }

    /**
     * Every 10 s the journal starts a new segment file. When no file can be made (the inodes of the data
     * directory's file system used up, e.g. by a container writing empty files below an allowed root on the
     * same file system), the nonces go on into the current segment: before, the memory broke and every signed
     * request was answered 500 until a restart. Once files can be made again, a new segment is started.
     */
    @Test
    void noNewSegmentFileKeepsTheCurrentOneAndRequestsAreStillAdmitted() throws Exception {
        TestClock clock = new TestClock(T0);
        FillableDisk disk = new FillableDisk();
        try (NonceMemory m = memory(clock, disk)) {
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000001", T0));
            disk.noInodes = true;
            clock.advance(Duration.ofMillis(NonceJournal.SEGMENT_MILLIS));
            Instant later = T0.plusMillis(NonceJournal.SEGMENT_MILLIS);
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000002", later));
            clock.advance(Duration.ofSeconds(2));
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000003", later));
            assertEquals(Admission.REPLAYED, m.admit("nonce-0000000000000002", later));
            disk.noInodes = false;
            clock.advance(Duration.ofSeconds(2));
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000004", later));
        }
        String first = Files.readString(dir.resolve(NonceJournal.FILE));
        assertEquals(4, first.lines().count(), "the header and the nonces admitted while no file could be made: "
                + first);
        assertTrue(Files.readString(dir.resolve(NonceJournal.FILE + ".1")).contains("nonce-0000000000000004"),
                "a new segment once files can be made again");
    }

    /**
     * A closed segment is deleted only right after a new segment was made, whose header carries at least the
     * earliest timestamp the deleted lines covered (ClockStepTest). With no file to be made, the raised start
     * lived only in memory, yet the segments whose lines had expired by a clock stepped ahead were deleted all
     * the same: once the clock was back, a restarted agent took a captured request for a new one.
     */
    @Test
    void noSegmentIsDeletedWhenNoNewOneCouldCarryTheStartOfTheMemory() throws Exception {
        String captured = "nonce-captured-00000001";
        TestClock clock = new TestClock(T0);
        FillableDisk disk = new FillableDisk();
        try (NonceMemory m = memory(clock, disk)) {
            assertEquals(Admission.ADMITTED, m.admit(captured, T0));
            clock.advance(Duration.ofMillis(NonceJournal.SEGMENT_MILLIS));
            // A new segment (its header: the memory began at T0); the start segment, holding the captured
            // nonce, is closed.
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000002", clock.instant()));
            disk.noInodes = true;
            clock.set(T0.plus(NonceStore.RETENTION).plusSeconds(30)); // ahead: the captured line has expired
            assertEquals(Admission.ADMITTED, m.admit("nonce-0000000000000003", clock.instant()));
            assertTrue(Files.exists(dir.resolve(NonceJournal.FILE)), "the closed segment is kept");
        }
        // The clock is set back, the agent restarts.
        try (NonceMemory back = memory(new TestClock(T0.plusSeconds(5)), new FillableDisk())) {
            assertEquals(Admission.REPLAYED, back.admit(captured, T0), "the replay: its line is still on disk");
        }
    }
}
