package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.AuthException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The durable form of the nonce memory: {@value #FILE} in the data directory, a header line
 * {@code DOGAMA-NONCES-V1 <epoch millis the memory began>} and then one line
 * {@code <expiry epoch millis> <nonce>} per admitted nonce, appended and forced to disk before the
 * request is acted on. It is rewritten (to a temporary file, then renamed atomically) at start and
 * whenever it has grown to twice its live entries, so its size stays proportional to the number of
 * nonces inside the retention period. A final line without its newline is a write a crash cut short:
 * its request was never answered, so it is dropped. Any other malformed line refuses the start.
 * {@value #LOCK_FILE} holds an exclusive lock so that two agents never share one journal.
 */
final class NonceJournal implements AutoCloseable {
    /** Journal file name. */
    static final String FILE = "nonces.journal";
    /** Lock file name. */
    static final String LOCK_FILE = "nonces.lock";
    /** Journals below this many lines are never compacted while running, 4096. */
    static final int MIN_COMPACT_LINES = 4096;
    private static final String HEADER = "DOGAMA-NONCES-V1";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path dir;
    private final Path file;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Instant since;
    private FileChannel appender;
    private long appendedLines;

    /**
     * A journal opened at start.
     *
     * @param journal the open journal
     * @param since   when this memory began
     * @param entries every entry in the file, expired ones included
     */
    record Loaded(NonceJournal journal, Instant since, List<NonceMemory.Entry> entries) {
    }

    private NonceJournal(Path dir, FileChannel lockChannel, FileLock lock, Instant since) {
        this.dir = dir;
        this.file = dir.resolve(FILE);
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.since = since;
    }

    /**
     * Locks and reads the journal, or starts a new one whose memory begins now.
     *
     * @param dir an existing directory
     * @param now the current instant
     * @return the journal and its entries; the caller must {@link #rewrite} before appending
     * @throws AuthException if the directory is unusable, the journal is locked by another process, or corrupt
     */
    static Loaded open(Path dir, Instant now) throws AuthException {
        if (!Files.isDirectory(dir)) {
            throw new AuthException("data directory " + dir + " does not exist");
        }
        FileChannel lockChannel = null;
        try {
            lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE), OWNER_ONLY);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new AuthException("the nonce journal in " + dir + " is in use by another agent");
            }
            Path file = dir.resolve(FILE);
            byte[] content;
            try {
                content = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                NonceJournal journal = new NonceJournal(dir, lockChannel, lock, now);
                return new Loaded(journal, now, List.of());
            }
            ParsedFile parsed = parse(content, file);
            return new Loaded(new NonceJournal(dir, lockChannel, lock, parsed.since()), parsed.since(),
                    parsed.entries());
        } catch (IOException e) {
            closeQuietly(lockChannel);
            throw new AuthException("cannot open the nonce journal in " + dir, e);
        } catch (AuthException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private record ParsedFile(Instant since, List<NonceMemory.Entry> entries) {
    }

    private static ParsedFile parse(byte[] content, Path file) throws AuthException {
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
        List<NonceMemory.Entry> entries = new ArrayList<>();
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
        return new ParsedFile(since, entries);
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
     * Appends one entry and forces it to disk.
     *
     * @param entry the entry
     * @throws IOException if it could not be written durably
     */
    void append(NonceMemory.Entry entry) throws IOException {
        ByteBuffer line = ByteBuffer.wrap((entry.expiryMillis() + " " + entry.nonce() + "\n")
                .getBytes(StandardCharsets.US_ASCII));
        while (line.hasRemaining()) {
            appender.write(line);
        }
        appender.force(false);
        appendedLines++;
    }

    /**
     * Replaces the journal with exactly these entries, atomically, and appends to the new file from now on.
     * On failure the previous journal stays in use.
     *
     * @param live the entries to keep
     * @throws IOException if the new file could not be written, forced or renamed
     */
    void rewrite(List<NonceMemory.Entry> live) throws IOException {
        StringBuilder text = new StringBuilder(32 + live.size() * 48);
        text.append(HEADER).append(' ').append(since.toEpochMilli()).append('\n');
        for (NonceMemory.Entry e : live) {
            text.append(e.expiryMillis()).append(' ').append(e.nonce()).append('\n');
        }
        Path temp = dir.resolve(FILE + TEMP_SUFFIX);
        Files.deleteIfExists(temp);
        try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), OWNER_ONLY)) {
            ByteBuffer buffer = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.US_ASCII));
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true); // makes the rename itself durable
        }
        FileChannel next = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        closeQuietly(appender);
        appender = next;
        appendedLines = live.size();
    }

    /** @return entry lines in the current file */
    long appendedLines() {
        return appendedLines;
    }

    @Override
    public void close() {
        closeQuietly(appender);
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
