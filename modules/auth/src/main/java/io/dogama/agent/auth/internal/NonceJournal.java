package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.Authenticator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * The durable form of the nonce memory: a sequence of segment files in the data directory, each a
 * header line {@code DOGAMA-NONCES-V1 <epoch millis the memory began>} and then one line
 * {@code <expiry epoch millis> <nonce>} per admitted nonce.
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
 * nonce was never acknowledged), so it is dropped; any other malformed line refuses the start. A
 * nonce may appear in several segments (a crash between the start rewrite and the removal of the old
 * segments); that is harmless. {@value #LOCK_FILE} holds an exclusive lock so that two agents never
 * share one journal. Every file is created mode 0600.
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
    private static final String HEADER = "DOGAMA-NONCES-V1";
    private static final String TEMP_SUFFIX = ".tmp";

    private final Path dir;
    private final JournalDisk disk;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Instant since;
    private final List<Path> previous;
    private final Deque<Segment> closed = new ArrayDeque<>();
    private Segment current;
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
     * @param journal the open journal
     * @param since   when this memory began
     * @param entries every entry in the files, expired ones and duplicates included
     */
    record Loaded(NonceJournal journal, Instant since, List<NonceMemory.Entry> entries) {
    }

    private NonceJournal(Path dir, JournalDisk disk, FileChannel lockChannel, FileLock lock, Instant since,
            List<Path> previous) {
        this.dir = dir;
        this.disk = disk;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.since = since;
        this.previous = previous;
    }

    /**
     * Locks and reads the journal, or starts a new one whose memory begins now.
     *
     * @param dir  an existing directory
     * @param now  the current instant
     * @param disk the file operations used from {@link #start} on
     * @return the journal and its entries; the caller must {@link #start} it before appending
     * @throws AuthException if the directory is unusable, the journal is locked by another process, or corrupt
     */
    static Loaded open(Path dir, Instant now, JournalDisk disk) throws AuthException {
        if (!Files.isDirectory(dir)) {
            throw new AuthException("data directory " + dir + " does not exist");
        }
        // The lock file stays after every run: without it there was no earlier run in this directory.
        boolean ranBefore = Files.exists(dir.resolve(LOCK_FILE));
        FileChannel lockChannel = null;
        try {
            lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE), JournalDisk.OWNER_ONLY);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new AuthException("the nonce journal in " + dir + " is in use by another agent");
            }
            Files.deleteIfExists(dir.resolve(FILE + TEMP_SUFFIX)); // a creation a crash cut short: never used
            List<Path> files = new ArrayList<>(JournalDisk.list(dir, FILE + ".[0-9]*"));
            files.sort(Comparator.comparingLong(NonceJournal::number));
            if (Files.exists(dir.resolve(FILE))) {
                files.addFirst(dir.resolve(FILE));
            }
            Instant since = null;
            boolean torn = false;
            List<NonceMemory.Entry> entries = new ArrayList<>();
            for (Path file : files) {
                byte[] content;
                try {
                    content = Files.readAllBytes(file);
                } catch (NoSuchFileException e) {
                    continue;
                }
                Instant began = parse(content, file, entries);
                torn |= content.length > 0 && content[content.length - 1] != '\n';
                // Every segment carries the same start; should they ever differ, the later one is the safe one.
                since = since == null || began.isAfter(since) ? began : since;
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
            return new Loaded(new NonceJournal(dir, disk, lockChannel, lock, memorySince, files), memorySince,
                    entries);
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

    private static Instant parse(byte[] content, Path file, List<NonceMemory.Entry> entries) throws AuthException {
        String text = new String(content, StandardCharsets.US_ASCII);
        int firstEnd = text.indexOf('\n');
        if (firstEnd < 0) {
            throw new AuthException("nonce journal " + file + " has no header");
        }
        String header = text.substring(0, firstEnd);
        Instant since;
        if (!header.startsWith(HEADER + ' ')) {
            throw new AuthException("nonce journal " + file + " has an unknown header");
        }
        try {
            since = Instant.ofEpochMilli(Long.parseLong(header.substring(HEADER.length() + 1)));
        } catch (NumberFormatException e) {
            throw new AuthException("nonce journal " + file + " has an unknown header");
        }
        int start = firstEnd + 1;
        int lineNumber = 2;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                break; // a torn final append: its request was never answered
            }
            entries.add(parseLine(text.substring(start, end), file, lineNumber));
            start = end + 1;
            lineNumber++;
        }
        return since;
    }

    private static NonceMemory.Entry parseLine(String line, Path file, int lineNumber) throws AuthException {
        int space = line.indexOf(' ');
        if (space > 0 && space <= 19) {
            String nonce = line.substring(space + 1);
            try {
                long expiry = Long.parseLong(line.substring(0, space));
                if (HeaderSyntax.nonce(nonce)) {
                    return new NonceMemory.Entry(expiry, nonce);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new AuthException("nonce journal " + file + " line " + lineNumber + " is corrupt");
    }

    /**
     * Writes exactly these entries as the new {@value #FILE}, atomically and durably, removes the
     * segments read at open, and appends to the new file from now on.
     *
     * @param live      the entries to keep
     * @param nowMillis the clock
     * @throws IOException if the new file could not be written, forced or renamed; the old files are then kept
     */
    void start(List<NonceMemory.Entry> live, long nowMillis) throws IOException {
        StringBuilder text = new StringBuilder(32 + live.size() * 48);
        long maxExpiry = Long.MIN_VALUE;
        for (NonceMemory.Entry e : live) {
            text.append(e.expiryMillis()).append(' ').append(e.nonce()).append('\n');
            maxExpiry = Math.max(maxExpiry, e.expiryMillis());
        }
        Path file = dir.resolve(FILE);
        createSegment(file, text.toString());
        for (Path old : previous) {
            if (!old.equals(file)) {
                disk.delete(old); // a crash before this leaves duplicates, which are harmless
            }
        }
        appender = disk.append(file);
        current = new Segment(file, nowMillis, maxExpiry);
    }

    /** Header plus body under a temporary name, forced, renamed, directory forced. */
    private void createSegment(Path file, String body) throws IOException {
        String text = HEADER + ' ' + since.toEpochMilli() + '\n' + body;
        Path temp = dir.resolve(FILE + TEMP_SUFFIX);
        disk.delete(temp);
        disk.createForced(temp, text.getBytes(StandardCharsets.US_ASCII));
        disk.replace(temp, file);
        disk.forceDirectory(dir); // makes the rename itself durable
    }

    /**
     * Appends lines and forces them to disk; first starts a new segment when the current one is
     * {@link #SEGMENT_MILLIS} old, and then deletes the closed segments whose nonces have all expired.
     *
     * @param lines          complete lines
     * @param length         bytes of {@code lines} to write
     * @param maxExpiryMillis the latest expiry among them
     * @param nowMillis      the clock
     * @throws IOException if the lines could not be written durably (a failed deletion is only logged)
     */
    void append(byte[] lines, int length, long maxExpiryMillis, long nowMillis) throws IOException {
        if (nowMillis - current.createdMillis >= SEGMENT_MILLIS) {
            rotate(nowMillis);
            deleteExpired(nowMillis);
        }
        appender.write(ByteBuffer.wrap(lines, 0, length));
        appender.force();
        current.maxExpiryMillis = Math.max(current.maxExpiryMillis, maxExpiryMillis);
    }

    private void rotate(long nowMillis) throws IOException {
        Path file = dir.resolve(FILE + "." + nextNumber);
        createSegment(file, "");
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
