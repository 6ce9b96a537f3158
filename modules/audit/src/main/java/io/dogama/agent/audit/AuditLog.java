package io.dogama.agent.audit;

import io.dogama.agent.audit.internal.Anchor;
import io.dogama.agent.audit.internal.KeyFile;
import io.dogama.agent.audit.internal.Tail;
import io.dogama.agent.audit.internal.Verifier;
import io.dogama.agent.audit.internal.Writer;
import io.dogama.agent.core.LockFiles;
import io.dogama.agent.core.RegularFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's audit log (SPEC section 14): one hash-chained JSON line per event, from a bounded queue,
 * written by the log's own thread or, for a mutation's line when nobody else is writing, by the
 * mutation's request itself ({@code Writer}).
 *
 * <p>Two ways to write, by what is at stake:
 * <ul>
 * <li>{@link #record}: for a mutation's begin and end. The caller returns once the line is synced to
 *     disk: a line queued behind others is waited for at most {@link #DURABLE_WAIT}; a line the caller
 *     writes itself is reported as not written if its sync returned later than that, but a disk that
 *     hangs inside the sync holds the caller (and the agent's stop) for as long as it hangs, as the
 *     registry's forced writes of the same mutation would. A mutation whose begin line cannot be written
 *     is not done: the caller answers 503 {@code busy}. So no mutation ever happens unaudited.</li>
 * <li>{@link #note}, {@link #noteUnauthenticated} and {@link #noteSignedRefusal}: for refusals, best effort. A
 *     full queue drops the event (counted in {@link #dropped()}); unauthenticated refusals are also limited to
 *     {@link #UNAUTHENTICATED_PER_SECOND} lines a second, and those of correctly signed requests sent again or too
 *     late to as many of their own (the excess is counted and written as
 *     {@code suppressedBefore} on the next such line), so that anyone on the network cannot fill the
 *     disk quickly through the log; below a reserve of free space ({@code Writer.RESERVE_BYTES}) they are
 *     counted and not written at all, which bounds a flood.</li>
 * </ul>
 */
public final class AuditLog implements AutoCloseable {
    /** Longest a mutation waits for its line to be on disk before it is refused (or, for an end line, logged as unaudited). */
    public static final Duration DURABLE_WAIT = Duration.ofSeconds(2);
    /** Name of the key file in the data directory. */
    public static final String KEY_FILE_NAME = "audit.key";
    /**
     * Name of the lock file in the log folder, held while an agent writes there: two agents given one
     * folder would write over each other's lines at their own offsets, each with its own key.
     */
    public static final String LOCK_FILE_NAME = "audit.lock";
    /**
     * Name of the file beside the key that names the log's last line known to be on disk (sequence number and
     * MAC): a start refuses a log that no longer holds it, or whose lines after it do not chain from it.
     */
    public static final String HEAD_FILE_NAME = Anchor.FILE_NAME;
    /** Most unauthenticated refusals written per second; the rest are counted. */
    public static final int UNAUTHENTICATED_PER_SECOND = 50;

    private final Writer writer;
    private final FileChannel lock;
    private final Clock clock;
    private final AtomicLong suppressedTotal = new AtomicLong();
    /** Requests whose signature did not check out: anyone on the network can send them. */
    private final Budget unsigned = new Budget();
    /**
     * Correctly signed requests refused as replayed or stale: a budget of their own, so that a flood of unsigned
     * requests cannot crowd out the lines of a captured request sent again (session 38's review).
     */
    private final Budget signed = new Budget();

    /** {@link #UNAUTHENTICATED_PER_SECOND} lines a second of one kind of refusal; the excess is counted. */
    private final class Budget {
        private final AtomicLong windowSecond = new AtomicLong(-1);
        private final AtomicLong windowCount = new AtomicLong();
        private final AtomicLong suppressed = new AtomicLong();

        void offer(AuditEvent event) {
            Objects.requireNonNull(event, "event");
            long second = clock.millis() / 1000;
            long window = windowSecond.get();
            if (window != second && windowSecond.compareAndSet(window, second)) {
                windowCount.set(0);
            }
            if (windowCount.incrementAndGet() > UNAUTHENTICATED_PER_SECOND) {
                suppressed.incrementAndGet();
                suppressedTotal.incrementAndGet();
                return;
            }
            long before = suppressed.getAndSet(0);
            if (!writer.offer(event, before)) {
                suppressed.addAndGet(before);
            }
        }
    }

    private AuditLog(Writer writer, FileChannel lock, Clock clock) {
        this.writer = writer;
        this.lock = lock;
        this.clock = clock;
    }

    /**
     * Opens the log in {@code dir} (created 0700 if missing), with the key in {@code keyFile} (made,
     * 0600, on first start), continuing the chain from the last line.
     *
     * @param dir          the log folder
     * @param maxFileBytes a file is rotated before a line would take it past this
     * @param keyFile      the audit key file
     * @param clock        the time written in each line
     * @return the open log
     * @throws AuditException if the folder cannot be made, another agent writes there, the key is missing
     *                        while a log exists (a new
     *                        key would make the old lines unverifiable), the key file is unsafe, or the
     *                        last line is not an audit line
     */
    public static AuditLog open(Path dir, long maxFileBytes, Path keyFile, Clock clock) throws AuditException {
        Objects.requireNonNull(clock, "clock");
        if (maxFileBytes < 4096) {
            throw new IllegalArgumentException("audit: maxFileBytes below 4096");
        }
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException exists) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new AuditException(dir + " is not a directory");
            }
        } catch (NoSuchFileException e) {
            throw new AuditException("the parent of " + dir + " is missing", e);
        } catch (IOException e) {
            throw new AuditException(dir + " cannot be created", e);
        }
        boolean logExists;
        try (var s = Files.list(dir)) {
            logExists = s.anyMatch(p -> p.getFileName().toString().startsWith("audit-"));
        } catch (IOException e) {
            throw new AuditException(dir + " cannot be listed", e);
        }
        FileChannel lock = lock(dir, keyFile.toAbsolutePath().getParent());
        try {
            byte[] key = KeyFile.load(keyFile, !logExists);
            return new AuditLog(Writer.open(dir, maxFileBytes, key, clock, keyFile.resolveSibling(Anchor.FILE_NAME)),
                    lock, clock);
        } catch (AuditException | RuntimeException e) {
            closeQuietly(lock);
            throw e;
        }
    }

    /** @param keyDir the key's and the anchor's folder, which the log reads too */
    private static FileChannel lock(Path dir, Path keyDir) throws AuditException {
        try {
            return LockFiles.acquire(dir.resolve(LOCK_FILE_NAME), keyDir).channel();
        } catch (LockFiles.InUse e) {
            throw new AuditException("the audit log in " + dir + " is in use by another agent", e);
        } catch (RegularFiles.NotRegular | LockFiles.Shared e) {
            throw new AuditException("the lock file: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new AuditException("the lock file in " + dir + " cannot be opened or locked", e);
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            System.getLogger(AuditLog.class.getName()).log(System.Logger.Level.WARNING, "audit: closing the lock failed");
        }
    }

    /**
     * Writes a mutation's line and waits until it is synced.
     *
     * @param event a {@link AuditEvent.Kind#BEGIN} or {@link AuditEvent.Kind#END} event
     * @return true once on disk; false if it could not be written within {@link #DURABLE_WAIT}
     */
    public boolean record(AuditEvent event) {
        return writer.writeDurably(Objects.requireNonNull(event, "event"), 0, DURABLE_WAIT);
    }

    /**
     * Queues a refusal by an authenticated caller (or a reconciliation action); never waits.
     *
     * @param event the event
     */
    public void note(AuditEvent event) {
        writer.offer(Objects.requireNonNull(event, "event"), 0);
    }

    /**
     * Queues a refusal of an unauthenticated request, within {@link #UNAUTHENTICATED_PER_SECOND}; never waits.
     *
     * @param event the event
     */
    public void noteUnauthenticated(AuditEvent event) {
        unsigned.offer(event);
    }

    /**
     * Queues a refusal of a request whose signature checked out but which was sent again or too late, within
     * {@link #UNAUTHENTICATED_PER_SECOND} of its own; never waits.
     *
     * @param event the event
     */
    public void noteSignedRefusal(AuditEvent event) {
        signed.offer(event);
    }

    /** @return false after a write failed and until one succeeds again */
    public boolean writable() {
        return writer.healthy();
    }

    /** @return lines written since start */
    public long written() {
        return writer.written();
    }

    /** @return failed writes and syncs since start */
    public long errors() {
        return writer.errors();
    }

    /** @return events not written because the queue was full */
    public long dropped() {
        return writer.dropped();
    }

    /** @return refusals before authentication (signed ones sent again or too late included) held back by the limits */
    public long suppressed() {
        return suppressedTotal.get();
    }

    /** @return the sequence number of the last line written (an external anchor: a scraper that records it notices a log cut short) */
    public long lastSequence() {
        return writer.lastSeq();
    }

    /** @return events waiting in the queue */
    public int queued() {
        return writer.queued();
    }

    /** @return the queue's capacity */
    public static int queueCapacity() {
        return Writer.QUEUE_CAPACITY;
    }

    /** Writes what is queued, syncs and closes. */
    @Override
    public void close() {
        writer.close();
        closeQuietly(lock);
    }

    /**
     * Verifies the whole chain in {@code dir}, from sequence 1 through every file; see
     * {@link Verification.Broken} for how a break is named.
     *
     * @param dir     the log folder
     * @param keyFile the audit key file
     * @return the verdict
     * @throws AuditException if the key or a file cannot be read
     */
    public static Verification verify(Path dir, Path keyFile) throws AuditException {
        return verify(dir, keyFile, false);
    }

    /**
     * As {@link #verify(Path, Path)}; for the agent's own log, also against the last line the agent recorded
     * beside its key ({@value #HEAD_FILE_NAME}): the chain alone cannot tell a log cut short at a line boundary,
     * emptied, or replaced by another chain under the same key (an archive of it).
     *
     * @param own true for the log the agent writes (its anchor applies), false for a copy or an archive
     * @return the verdict
     * @throws AuditException if the key, the anchor or a file cannot be read
     */
    public static Verification verify(Path dir, Path keyFile, boolean own) throws AuditException {
        byte[] key = KeyFile.load(keyFile, false);
        Optional<Anchor.Head> anchored = own ? Anchor.read(keyFile.resolveSibling(Anchor.FILE_NAME)) : Optional.empty();
        try {
            return Verifier.verify(dir, key, anchored);
        } catch (IOException e) {
            throw new AuditException("the log in " + dir + " cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * @param dir the log folder
     * @param n   how many lines, at least 1
     * @return the last {@code n} lines across the files, oldest first, as written (not verified)
     * @throws AuditException if a file cannot be read
     */
    public static List<String> tail(Path dir, int n) throws AuditException {
        if (n < 1) {
            throw new IllegalArgumentException("audit: n below 1");
        }
        try {
            return Tail.lines(dir, n);
        } catch (IOException e) {
            throw new AuditException("the log in " + dir + " cannot be read: " + e.getMessage(), e);
        }
    }
}
