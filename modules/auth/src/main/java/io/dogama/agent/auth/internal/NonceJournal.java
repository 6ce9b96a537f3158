package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.core.LockFiles;
import io.dogama.agent.core.RegularFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;

/**
 * The durable form of the nonce memory: a sequence of segment files in the data directory, each a
 * header line {@code DOGAMA-NONCES-V1 <since>} and then one line {@code <expiry epoch millis> <nonce>}
 * per admitted nonce. {@code since} (epoch millis) is the earliest request timestamp the memory vouches
 * for: it began then, or it has forgotten the nonces of earlier requests. Forgetting always raises it
 * first: the start segment's header carries at least {@code start - retention} (the lines it drops
 * expired before the start: their requests were timestamped before that), and a new segment's header at
 * least {@code now - retention} before the segments whose every line expired before now are deleted (and
 * when no new segment could be made, nothing is deleted: NoSpaceTest). So a restart, after the clock was
 * set back by any amount, refuses as before the memory every request whose nonce a deletion may have
 * forgotten, instead of taking it as new (ClockStepTest).
 *
 * <p>Files: {@value #FILE} is the segment written at start (every unexpired nonce of the previous run,
 * rewritten to a temporary file, forced and renamed atomically) and appended to until
 * {@link #SEGMENT_MILLIS} have passed; then appends go to a new segment {@code nonces.journal.1},
 * {@code .2}, ... A segment other than the current one is deleted as soon as every nonce in it has
 * expired, so expiry drops whole files and nothing is ever rewritten while running; the files hold
 * about {@code (retention + skew + segment length)} of admissions. A new segment is created under a
 * temporary name with its header, forced, renamed and its directory forced before anything is
 * appended to it, so a visible segment always has its header.
 *
 * <p>Crash rules on reading: a final line without its newline is a write a crash cut short (its
 * nonce was never acknowledged), so it is dropped; any other malformed line refuses the start, and so
 * does a line longer than {@value #MAX_LINE} bytes. A nonce may appear in several segments (a crash
 * between the start rewrite and the removal of the old segments); that is harmless. {@value #LOCK_FILE}
 * holds an exclusive lock so that two agents never share one journal. Every file is created mode 0600.
 *
 * <p>Memory: the segments are never held whole. A start reads them twice, {@value #BUFFER} bytes at a
 * time: {@link #open} checks every line and counts the unexpired ones (the table is sized by that
 * count), and {@link #start} copies the unexpired lines into the new segment while it hands each one
 * to the caller (who puts its fingerprint into the table outside the heap). A journal of millions of
 * lines therefore reloads within the image's 96 MiB heap (LargeJournalTest).
 *
 * <p>Threads: {@link #open} and {@link #start} run before the memory is shared; afterwards only the
 * memory's journal thread calls {@link #append} and, after it stopped, {@link #close}.
 */
final class NonceJournal implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NonceJournal.class.getName());

    /** Name of the segment written at start. */
    static final String FILE = "nonces.journal";
    /** Lock file name. */
    static final String LOCK_FILE = "nonces.lock";
    /** How long a segment is appended to before the next one begins, 10 s of the clock. */
    static final long SEGMENT_MILLIS = 10_000;
    /** How soon a new segment is tried again after one could not be made. */
    private static final long ROTATE_RETRY_MILLIS = 1_000;
    private static final String HEADER = "DOGAMA-NONCES-V1";
    private static final String TEMP_SUFFIX = ".tmp";
    /** The longest line of a segment, header included: 19 digits, a space, the longest nonce, and room. */
    static final int MAX_LINE = 128;
    /** Bytes read or written at a time when a segment is streamed, 64 KiB. */
    static final int BUFFER = 1 << 16;

    private final Path dir;
    private final JournalDisk disk;
    private final FileChannel lockChannel;
    private final FileLock lock;
    /** The earliest request timestamp this memory vouches for; only raised, by the journal thread at rotation. */
    private Instant since;
    /** Lines of the files read at open that expire before this epoch millisecond are dropped at start. */
    private final long cutoffMillis;
    /** How long after its request timestamp a nonce is kept: a line's expiry is its timestamp plus this. */
    private final long retentionMillis;
    private final List<Path> previous;
    private final Deque<Segment> closed = new ArrayDeque<>();
    private Segment current;
    /** No new segment is tried before this, after one could not be made; {@code Long.MIN_VALUE} when none failed. */
    private long rotateAgainMillis = Long.MIN_VALUE;
    private JournalDisk.Appender appender;
    private int nextNumber = 1;

    /** A segment file and the latest expiry written to it. */
    private static final class Segment {
        final Path file;
        final long createdMillis;
        long maxExpiryMillis;

        Segment(Path file, long createdMillis, long maxExpiryMillis) {
            this.file = file;
            this.createdMillis = createdMillis;
            this.maxExpiryMillis = maxExpiryMillis;
        }
    }

    /**
     * A journal opened at start.
     *
     * @param journal   the open journal
     * @param since     the earliest request timestamp the memory vouches for
     * @param unexpired how many lines {@link #start} will hand over (duplicates included): the most the table must hold
     */
    record Loaded(NonceJournal journal, Instant since, long unexpired) {
    }

    /** Receives the unexpired lines of the segments, in file order. */
    @FunctionalInterface
    interface LineSink {
        /**
         * @param expiryMillis the line's expiry, at or after the cutoff
         * @param nonce        its nonce, syntax-checked
         * @throws IOException if the line could not be used
         */
        void line(long expiryMillis, String nonce) throws IOException;
    }

    /**
     * Takes no line: {@link #open} only checks and counts. No lambda on the paths only a restart takes (nor a
     * string concatenation): the image's AOT cache is trained on a first start, and the first lambda that is not
     * in it sets up the whole lambda machinery, interpreted, during the start.
     */
    private static final LineSink CHECK_ONLY = new LineSink() {
        @Override
        public void line(long expiryMillis, String nonce) {
            // counted by read
        }
    };

    /** A malformed segment: the start is refused with this message. */
    private static final class Corrupt extends IOException {
        private static final long serialVersionUID = 1L;

        Corrupt(String message) {
            super(message);
        }
    }

    /** A line of a segment: a nonce and the epoch millisecond after which it may be forgotten. */
    private record Line(long expiryMillis, String nonce) {
    }

    /** What reading a segment found besides its lines. */
    private record Read(Instant since, boolean torn, long unexpired) {
    }

    private NonceJournal(Path dir, JournalDisk disk, FileChannel lockChannel, FileLock lock, Instant since,
            long cutoffMillis, long retentionMillis, List<Path> previous) {
        this.dir = dir;
        this.disk = disk;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.since = since;
        this.cutoffMillis = cutoffMillis;
        this.retentionMillis = retentionMillis;
        this.previous = previous;
    }

    /**
     * Locks the journal and checks every line of it, or starts a new one whose memory begins now.
     *
     * @param dir       an existing directory
     * @param now       the current instant: lines that expire before it are dropped at {@link #start}
     * @param retention how long after its request timestamp a nonce is kept
     * @param disk      the file operations used from {@link #start} on
     * @return the journal and the number of its unexpired lines; the caller must {@link #start} it before appending
     * @throws AuthException if the directory is unusable, the journal is locked by another process, or corrupt
     */
    static Loaded open(Path dir, Instant now, Duration retention, JournalDisk disk) throws AuthException {
        if (!Files.isDirectory(dir)) {
            throw new AuthException("data directory " + dir + " does not exist");
        }
        // The lock file stays after every run: without it there was no earlier run in this directory.
        boolean ranBefore = Files.exists(dir.resolve(LOCK_FILE));
        FileChannel lockChannel = null;
        try {
            FileLock lock;
            try {
                lock = LockFiles.acquire(dir.resolve(LOCK_FILE));
            } catch (LockFiles.InUse e) {
                throw new AuthException("the nonce journal in " + dir + " is in use by another agent");
            } catch (RegularFiles.NotRegular | LockFiles.Shared e) {
                throw new AuthException("the nonce journal's lock file: " + e.getMessage());
            }
            lockChannel = lock.channel();
            Files.deleteIfExists(dir.resolve(FILE + TEMP_SUFFIX)); // a creation a crash cut short: never used
            List<Path> files = new ArrayList<>(JournalDisk.listNumbered(dir, FILE + "."));
            files.sort(Comparator.comparingLong(NonceJournal::number));
            if (Files.exists(dir.resolve(FILE))) {
                files.addFirst(dir.resolve(FILE));
            }
            Instant since = null;
            boolean torn = false;
            long unexpired = 0;
            for (Path file : files) {
                Read read = read(file, now.toEpochMilli(), CHECK_ONLY);
                if (read == null) {
                    continue;
                }
                torn |= read.torn();
                unexpired += read.unexpired();
                // Every segment carries the same start; should they ever differ, the later one is the safe one.
                since = since == null || read.since().isAfter(since) ? read.since() : since;
            }
            Instant memorySince = since == null ? now : since;
            if (torn || since == null && ranBefore) {
                // Cut mid-line, or gone although an agent ran here: answered nonces may be lost (a crash
                // tears only an unanswered line, but nothing tells the two apart). No request signed
                // before this start can carry a timestamp later than now + the window, so refusing
                // those never accepts a replay; it costs the requests of the next 30 s a retry.
                Instant safe = now.plus(Authenticator.WINDOW);
                memorySince = safe.isAfter(memorySince) ? safe : memorySince;
                LOG.log(System.Logger.Level.WARNING, "auth: the nonce journal in {0} was {1}; requests timestamped "
                        + "before {2} are refused", dir, torn ? "cut short" : "missing", memorySince);
            }
            // The lines that expire before now are dropped at start: what they vouched for is forgotten.
            Instant forgotten = now.minus(retention);
            memorySince = forgotten.isAfter(memorySince) ? forgotten : memorySince;
            return new Loaded(new NonceJournal(dir, disk, lockChannel, lock, memorySince, now.toEpochMilli(),
                    retention.toMillis(), files), memorySince, unexpired);
        } catch (Corrupt e) {
            closeQuietly(lockChannel);
            throw new AuthException(e.getMessage());
        } catch (IOException e) {
            closeQuietly(lockChannel);
            throw new AuthException("cannot open the nonce journal in " + dir, e);
        } catch (AuthException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private static long number(Path segment) {
        String name = segment.getFileName().toString();
        try {
            return Long.parseLong(name.substring(FILE.length() + 1));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE; // not one of ours, e.g. "nonces.journal.1x"; read last and refused if malformed
        }
    }

    /**
     * Reads one segment {@value #BUFFER} bytes at a time: checks its header and every complete line and
     * hands each line that expires at or after the cutoff to the sink.
     *
     * @return what it found, or null if the file is gone
     * @throws Corrupt if the header or a complete line is malformed, or a line is longer than {@value #MAX_LINE}
     * @throws IOException if it cannot be read, or the sink failed
     */
    private static Read read(Path file, long cutoffMillis, LineSink sink) throws IOException {
        InputStream in;
        try {
            if (!RegularFiles.requireIfPresent(file)) {
                return null;
            }
            in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (in) {
            byte[] buffer = new byte[BUFFER];
            int filled = 0;
            int start = 0; // the current line's first byte
            int scan = 0; // the first byte not yet looked at
            int lineNumber = 1;
            Instant since = null;
            long unexpired = 0;
            while (true) {
                int end = scan;
                while (end < filled && buffer[end] != '\n') {
                    end++;
                }
                if (end < filled) {
                    String line = new String(buffer, start, end - start, StandardCharsets.US_ASCII);
                    if (since == null) {
                        since = header(line, file);
                    } else {
                        Line e = parseLine(line, file, lineNumber);
                        if (e.expiryMillis() >= cutoffMillis) {
                            unexpired++;
                            sink.line(e.expiryMillis(), e.nonce());
                        }
                    }
                    lineNumber++;
                    start = end + 1;
                    scan = start;
                    continue;
                }
                if (filled - start > MAX_LINE) {
                    throw since == null ? unknownHeader(file) : corrupt(file, lineNumber);
                }
                // Keep the unfinished line, move it to the front, read more after it.
                System.arraycopy(buffer, start, buffer, 0, filled - start);
                filled -= start;
                scan = filled;
                start = 0;
                int n = in.read(buffer, filled, buffer.length - filled);
                if (n < 0) {
                    break;
                }
                filled += n;
            }
            if (since == null) {
                throw new Corrupt("nonce journal " + file + " has no header");
            }
            // Bytes after the last newline: a torn final append, whose request was never answered.
            return new Read(since, filled > 0, unexpired);
        }
    }

    private static Instant header(String line, Path file) throws Corrupt {
        if (!line.startsWith(HEADER + ' ')) {
            throw unknownHeader(file);
        }
        try {
            return Instant.ofEpochMilli(Long.parseLong(line.substring(HEADER.length() + 1)));
        } catch (NumberFormatException e) {
            throw unknownHeader(file);
        }
    }

    private static Corrupt unknownHeader(Path file) {
        return new Corrupt("nonce journal " + file + " has an unknown header");
    }

    private static Corrupt corrupt(Path file, int lineNumber) {
        return new Corrupt("nonce journal " + file + " line " + lineNumber + " is corrupt");
    }

    private static Line parseLine(String line, Path file, int lineNumber) throws Corrupt {
        int space = line.indexOf(' ');
        if (space > 0 && space <= 19) {
            String nonce = line.substring(space + 1);
            try {
                long expiry = Long.parseLong(line.substring(0, space));
                if (HeaderSyntax.nonce(nonce)) {
                    return new Line(expiry, nonce);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw corrupt(file, lineNumber);
    }

    /**
     * Writes every line of the segments read at open that expires at or after the cutoff as the new
     * {@value #FILE}, atomically and durably, handing each to {@code reloaded} on the way; then removes
     * the segments read at open and appends to the new file from now on.
     *
     * @param reloaded  receives each line kept
     * @param nowMillis the clock
     * @throws IOException if the new file could not be written, forced or renamed, or {@code reloaded} failed;
     *                     the old files are then kept
     */
    void start(LineSink reloaded, long nowMillis) throws IOException {
        Path file = dir.resolve(FILE);
        Rewrite rewrite = new Rewrite(reloaded);
        createSegment(file, rewrite);
        for (Path old : previous) {
            if (!old.equals(file)) {
                disk.delete(old); // a crash before this leaves duplicates, which are harmless
            }
        }
        appender = disk.append(file);
        current = new Segment(file, nowMillis, rewrite.maxExpiryMillis);
    }

    /**
     * The body of the start segment: the unexpired lines of the segments read at open, through one buffer
     * (a named class rather than lambdas, see {@link #CHECK_ONLY}).
     */
    private final class Rewrite implements JournalDisk.Content, LineSink {
        private final LineSink reloaded;
        private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
        private final StringBuilder text = new StringBuilder(MAX_LINE);
        private JournalDisk.Output out;
        long maxExpiryMillis = Long.MIN_VALUE;

        Rewrite(LineSink reloaded) {
            this.reloaded = reloaded;
        }

        @Override
        public void writeTo(JournalDisk.Output output) throws IOException {
            out = output;
            for (Path old : previous) {
                read(old, cutoffMillis, this);
            }
            out.write(buffer.flip());
        }

        @Override
        public void line(long expiryMillis, String nonce) throws IOException {
            reloaded.line(expiryMillis, nonce);
            maxExpiryMillis = Math.max(maxExpiryMillis, expiryMillis);
            text.setLength(0);
            text.append(expiryMillis).append(' ').append(nonce).append('\n');
            if (buffer.remaining() < text.length()) {
                out.write(buffer.flip());
                buffer.clear();
            }
            for (int i = 0; i < text.length(); i++) {
                buffer.put((byte) text.charAt(i)); // ASCII: the nonce was syntax-checked
            }
        }
    }

    /** Header plus body under a temporary name, forced, renamed, directory forced. */
    private void createSegment(Path file, JournalDisk.Content body) throws IOException {
        byte[] header = (HEADER + ' ' + since.toEpochMilli() + '\n').getBytes(StandardCharsets.US_ASCII);
        Path temp = dir.resolve(FILE + TEMP_SUFFIX);
        disk.delete(temp);
        disk.createForced(temp, out -> {
            out.write(ByteBuffer.wrap(header));
            body.writeTo(out);
        });
        disk.replace(temp, file);
        disk.forceDirectory(dir); // makes the rename itself durable
    }

    /**
     * Appends lines and forces them to disk; first starts a new segment when the current one is
     * {@link #SEGMENT_MILLIS} old, and once it is made deletes the closed segments whose nonces have all expired.
     *
     * @param lines          complete lines
     * @param length         bytes of {@code lines} to write
     * @param maxExpiryMillis the latest expiry among them
     * @param nowMillis      the clock
     * @throws IOException if the lines could not be written durably (a failed deletion is only logged)
     */
    void append(byte[] lines, int length, long maxExpiryMillis, long nowMillis) throws IOException {
        if (nowMillis - current.createdMillis >= SEGMENT_MILLIS && nowMillis >= rotateAgainMillis) {
            try {
                rotate(nowMillis);
                rotateAgainMillis = Long.MIN_VALUE;
                // Only now: the new segment's header, on disk, carries the start that makes the deleted lines
                // unnecessary. Without it (no file could be made) the raised start lives only in memory, and a
                // restart after the clock went back would take a deleted nonce's replay for a new request.
                deleteExpired(nowMillis);
            } catch (IOException e) {
                // No new file (no inode left, a file system that refuses to create one): nothing of the current
                // segment was touched, so the lines go on into it, which only grows longer, and a new segment is
                // tried again a second later. Failing the append instead would refuse every signed request for as
                // long as no file can be made, although the current one still takes lines.
                if (rotateAgainMillis == Long.MIN_VALUE) {
                    LOG.log(System.Logger.Level.WARNING, "auth: cannot start a new nonce journal segment in {0} ({1});"
                            + " appending to the current one", dir, e.getClass().getSimpleName());
                }
                rotateAgainMillis = nowMillis + ROTATE_RETRY_MILLIS;
            }
        }
        appender.write(ByteBuffer.wrap(lines, 0, length));
        appender.force();
        current.maxExpiryMillis = Math.max(current.maxExpiryMillis, maxExpiryMillis);
    }

    private void rotate(long nowMillis) throws IOException {
        // Before deleteExpired forgets the nonces that expired before now (timestamped before now - retention).
        Instant forgotten = Instant.ofEpochMilli(nowMillis - retentionMillis);
        since = forgotten.isAfter(since) ? forgotten : since;
        Path file = dir.resolve(FILE + "." + nextNumber);
        createSegment(file, out -> { });
        nextNumber++;
        JournalDisk.Appender next = disk.append(file);
        JournalDisk.Appender old = appender;
        closed.addLast(current);
        current = new Segment(file, nowMillis, Long.MIN_VALUE);
        appender = next;
        try {
            old.close();
        } catch (IOException e) {
            // Everything in it was forced before it was closed.
        }
    }

    private void deleteExpired(long nowMillis) {
        closed.removeIf(s -> {
            if (s.maxExpiryMillis >= nowMillis) {
                return false;
            }
            try {
                disk.delete(s.file);
                return true;
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "auth: cannot delete the expired nonce journal segment "
                        + s.file.getFileName(), e);
                return false;
            }
        });
    }

    /** Closes the current segment and releases the lock. */
    @Override
    public void close() {
        if (appender != null) {
            try {
                appender.close();
            } catch (IOException e) {
                // nothing useful to do with a failed close of a file we no longer write
            }
        }
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it too
        }
        closeQuietly(lockChannel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing useful to do with a failed close of a channel we no longer need
            }
        }
    }
}
