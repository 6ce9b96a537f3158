package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.AuditEvent;
import io.dogama.agent.audit.AuditException;
import io.dogama.agent.core.KeyFiles;
import io.dogama.agent.core.RegularFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * One writer at a time. Requests put events in a bounded queue; a writer takes them in batches, gives each
 * its sequence number and MAC, appends them, and syncs the file ({@code fdatasync}) once per batch that
 * holds a durable event (a mutation's begin or end), and at least every {@link #SYNC_INTERVAL} otherwise.
 * A durable event is acknowledged only after that sync, so a caller that waits on it knows its line is on
 * disk. The writer is the log's own thread, or, for a durable event when nobody is writing, its caller:
 * one mutation at a time is the common case, and handing its line to the thread and being woken by it
 * again costs two waits for a core on a machine the engine keeps busy (measured in
 * {@code docs/performance.md}). Either way the file is touched under one lock, in queue order per batch.
 * A caller that writes cannot give up on a disk that hangs inside the sync, as a waiting caller can: it
 * is told {@code false} as soon as the sync returns late, as it would have been at its deadline.
 *
 * <p>A write that fails (disk full, file gone read-only) is undone (the file truncated back to its
 * last complete line, the chain state kept), its events are reported as not written, the failure is
 * logged and counted, and the next batch tries again: the log heals by itself when space returns.
 * A force that fails does not heal: the log stops ({@link #stopAfterFailedForce}).
 */
public final class Writer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Writer.class.getName());
    /** Events waiting to be written; past this a best-effort event is dropped and a durable one refused. */
    public static final int QUEUE_CAPACITY = 4096;
    /** Longest time a line that nobody waits for stays unsynced. */
    static final Duration SYNC_INTERVAL = Duration.ofSeconds(1);
    /** Most events written per batch (and per sync). */
    private static final int MAX_BATCH = 256;
    /** How long {@link #close} waits for the writer thread, and then for a caller still writing. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    /**
     * Free space kept for what must be written (a mutation's lines, and beside the log the registry and the nonce
     * journal when they share its file system): below the lesser of this and a tenth of the file system, lines
     * nobody waits for are dropped (counted) instead of written. Refusals can be caused by anyone on the network;
     * the rate limit slows them, this bounds them.
     */
    public static final long RESERVE_BYTES = 128L * 1024 * 1024;
    /** How often the free space is read again, at most. */
    private static final Duration SPACE_CHECK_INTERVAL = Duration.ofSeconds(1);
    /**
     * Most bytes of lines a start reads back to the anchored line. The anchor is written about once a second while
     * lines come, so a crash leaves it at most that far behind; far more is not what the agent wrote.
     */
    static final long MAX_UNANCHORED_BYTES = 16L * 1024 * 1024;
    /** A repeated write failure is logged at most this often (each one is counted). */
    private static final Duration FAILURE_LOG_INTERVAL = Duration.ofSeconds(60);

    /**
     * One line to write. A class, not a record: the stop below is found by identity, and a record's equals is made at
     * its first use (ObjectMethods' bootstrap, method-handle classes spun in the interpreter on the first request of a
     * start, docs/performance.md session 30).
     */
    private static final class Pending {
        final AuditEvent event;
        final long suppressed;
        final CompletableFuture<Boolean> done;

        Pending(AuditEvent event, long suppressed, CompletableFuture<Boolean> done) {
            this.event = event;
            this.suppressed = suppressed;
            this.done = done;
        }
    }

    private static final Pending STOP = new Pending(null, 0, null);

    private final Path dir;
    /** Where the last synced line is kept ({@link Anchor}), or null. */
    private final Path anchor;
    /** The anchor file, open from the start on (null when none is kept). */
    private Anchor.Slots slots;
    /** Applied to every file channel the writer opens to write (tests put faults in; else the channel itself). */
    private final UnaryOperator<FileChannel> channels;
    private final long maxFileBytes;
    private final Chain chain;
    private final Clock clock;
    private final BlockingQueue<Pending> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Thread thread;
    private final AtomicBoolean healthy = new AtomicBoolean(true);
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();
    /** The free space of the log's file system, in bytes; negative when it cannot be read. */
    private final LongSupplier usableSpace;
    private final long reserve;
    /** Held while the free space is read: when it is next read ({@link System#nanoTime}), and whether it was low. */
    private final Object space = new Object();
    private volatile long nextSpaceCheck = System.nanoTime();
    private volatile boolean low;
    private final AtomicLong lastSeq = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held by whoever writes: the writer thread, or a caller of {@link #writeDurably} writing its own line. */
    private final ReentrantLock writing = new ReentrantLock();
    /** Set by {@link #close} before it closes the file: from then on a closed channel stays closed. */
    private volatile boolean shut;

    // Guarded by writing once the writer thread runs.
    private FileChannel channel;
    private int fileNumber;
    private long fileSize;
    private long seq;
    private byte[] previous;
    private boolean unsynced;
    /** A failed write's bytes may lie past {@link #fileSize}, not cut off yet. */
    private boolean torn;
    /**
     * A force failed: the log takes no more lines (see {@link #stopAfterFailedForce}). Only a restart, which reads the
     * file back as the disk holds it, writes again.
     */
    private volatile boolean stopped;
    /** The last line known to be on disk (null before the first), and the last one the anchor file names. */
    private Anchor.Head synced;
    private long anchoredSeq;
    /** {@link System#nanoTime} of the last anchor write (its origin is arbitrary: no write yet is "long ago"). */
    private long lastAnchorWrite = System.nanoTime() - SYNC_INTERVAL.toNanos();
    private long lastAnchorFailureLog = lastAnchorWrite - FAILURE_LOG_INTERVAL.toNanos();
    /** {@link System#nanoTime} when the oldest line not yet synced was written. */
    private long unsyncedSince;
    private long lastFailureLog;

    private Writer(Path dir, long maxFileBytes, byte[] key, Clock clock, LongSupplier usableSpace, long totalSpace,
            Path anchor, UnaryOperator<FileChannel> channels) {
        this.dir = dir;
        this.anchor = anchor;
        this.channels = channels;
        this.maxFileBytes = maxFileBytes;
        this.chain = new Chain(key);
        this.clock = clock;
        this.usableSpace = usableSpace;
        this.reserve = Math.min(RESERVE_BYTES, Math.max(0, totalSpace) / 10);
        this.thread = Thread.ofPlatform().name("dogama-audit-writer").daemon(true).unstarted(this::loop);
    }

    /**
     * Opens the log, continuing the chain from its last complete line; a last line cut off by a crash
     * (no newline) is removed first: it was never acknowledged.
     *
     * @throws AuditException if the folder or its last file cannot be opened, or the last line is not
     *                        an audit line (the log is not continued then: an operator must look)
     */
    public static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock) throws AuditException {
        return open(dir, maxFileBytes, key, clock, (Path) null);
    }

    /**
     * As {@link #open(Path, long, byte[], Clock)}, keeping the log's last synced line in {@code anchor} and
     * checking the log against it first ({@link Anchor}).
     *
     * @param anchor the anchor file, or null to keep none
     * @throws AuditException also if the log does not hold the anchored line, or the lines after it do not chain
     *                        from it: cut short, emptied, replaced or appended to while the agent was stopped
     */
    public static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock, Path anchor)
            throws AuditException {
        long total;
        try {
            total = Files.getFileStore(dir).getTotalSpace();
        } catch (IOException e) {
            total = 0; // no reserve: lines are written as long as the file system takes them
        }
        return open(dir, maxFileBytes, key, clock, () -> {
            try {
                return Files.getFileStore(dir).getUsableSpace();
            } catch (IOException e) {
                return -1;
            }
        }, total, anchor);
    }

    /**
     * As {@link #open(Path, long, byte[], Clock)}, with the free space read from {@code usableSpace} (tests).
     *
     * @param totalSpace the size of the log's file system, which sets the reserve
     */
    static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock, LongSupplier usableSpace, long totalSpace)
            throws AuditException {
        return open(dir, maxFileBytes, key, clock, usableSpace, totalSpace, null);
    }

    /** As {@link #open(Path, long, byte[], Clock)}, every channel it writes through given to {@code channels}. */
    static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock, UnaryOperator<FileChannel> channels)
            throws AuditException {
        return open(dir, maxFileBytes, key, clock, () -> -1, 0, null, channels);
    }

    private static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock, LongSupplier usableSpace,
            long totalSpace, Path anchor) throws AuditException {
        return open(dir, maxFileBytes, key, clock, usableSpace, totalSpace, anchor, UnaryOperator.identity());
    }

    private static Writer open(Path dir, long maxFileBytes, byte[] key, Clock clock, LongSupplier usableSpace,
            long totalSpace, Path anchor, UnaryOperator<FileChannel> channels) throws AuditException {
        Writer w = new Writer(dir, maxFileBytes, key, clock, usableSpace, totalSpace, anchor, channels);
        try {
            w.resume();
        } catch (Segments.Foreign | RegularFiles.NotRegular e) {
            w.closeChannel();
            throw new AuditException(e.getMessage(), e);
        } catch (IOException e) {
            w.closeChannel();
            throw new AuditException("the log in " + dir + " cannot be opened", e);
        } catch (AuditException e) {
            w.closeChannel();
            throw e;
        }
        w.thread.start();
        return w;
    }

    private void resume() throws IOException, AuditException {
        List<Path> files = Segments.list(dir);
        seq = 0;
        previous = Chain.GENESIS;
        Optional<Anchor.Head> anchored = anchor == null ? Optional.empty() : Anchor.read(anchor);
        if (files.isEmpty()) {
            if (anchored.isPresent()) {
                throw new AuditException("the audit log in " + dir + " holds no file, but this agent wrote it up to"
                        + " seq " + anchored.get().seq() + " (" + anchor + "): it was emptied or moved away. Put it"
                        + " back, or, to start a new log on purpose, remove " + anchor);
            }
            fileNumber = 1;
            openFile(true);
            openAnchor(anchored);
            return;
        }
        for (Path f : files) {
            Segments.requireOwn(f, dir); // the repair below may truncate any of them
        }
        fileNumber = Segments.number(files.getLast());
        openFile(false);
        // The chain's head: the last complete line of the newest file that has one.
        for (int i = files.size() - 1; i >= 0; i--) {
            String last = lastLine(files.get(i), i == files.size() - 1);
            if (last == null) {
                continue;
            }
            Chain.Parsed p = Chain.parse(last);
            if (p == null) {
                throw new AuditException("the last line of " + files.get(i) + " is not an audit line; run "
                        + "'dogama-agent audit verify' and move the damaged log aside");
            }
            seq = p.seq();
            previous = p.mac();
            break;
        }
        if (anchored.isPresent()) {
            requireAnchored(files, anchored.get());
            // The lines read back may be only in the page cache (the process before was killed between a write and
            // its sync): on disk first, so that the anchor this head goes into is never ahead of the log.
            channel.force(false);
            synced = new Anchor.Head(seq, previous);
            anchoredSeq = anchored.get().seq();
        }
        lastSeq.set(seq);
        openAnchor(anchored);
    }

    private void openAnchor(Optional<Anchor.Head> anchored) throws IOException {
        if (anchor != null) {
            slots = Anchor.Slots.open(anchor, anchored);
        }
    }

    /**
     * The log must still hold the anchored line, and every line after it must chain from it: the head the
     * writer continues from is then the agent's own. Read backwards from the end, at most
     * {@link #MAX_UNANCHORED_BYTES}: the anchor is at most about a second behind the log.
     */
    private void requireAnchored(List<Path> files, Anchor.Head a) throws IOException, AuditException {
        String what = "; this agent wrote it up to seq " + a.seq() + " (" + anchor + "). Run 'dogama-agent audit"
                + " verify', put the log back as it was, or, to accept it as it is, remove " + anchor;
        if (seq < a.seq()) {
            throw new AuditException("the audit log in " + dir + " ends at seq " + seq + ": lines were cut off its"
                    + " end" + what);
        }
        List<Chain.Parsed> after = new ArrayList<>(); // newest first
        long bytes = 0;
        for (int i = files.size() - 1; i >= 0; i--) {
            try (FileChannel ch = FileChannel.open(files.get(i), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                Backwards lines = new Backwards(ch);
                for (byte[] line = lines.next(); line != null; line = lines.next()) {
                    bytes += line.length + 1;
                    Chain.Parsed p = line.length > Chain.MAX_LINE_BYTES ? null
                            : Chain.parse(new String(line, StandardCharsets.UTF_8));
                    if (p == null || bytes > MAX_UNANCHORED_BYTES) {
                        throw new AuditException("the audit log in " + dir + " does not hold the line of seq "
                                + a.seq() + " where " + (p == null ? "a line that is not an audit line" : "more lines"
                                + " than a second of writing makes") + " comes after it: changed" + what);
                    }
                    if (p.seq() <= a.seq()) {
                        if (!a.named(p.seq(), p.mac())) {
                            throw new AuditException("the line of seq " + a.seq() + " in " + files.get(i)
                                    + " is not the one this agent wrote: the log was replaced" + what);
                        }
                        byte[] mac = p.mac();
                        long expected = p.seq() + 1;
                        for (int k = after.size() - 1; k >= 0; k--) {
                            Chain.Parsed q = after.get(k);
                            if (q.seq() != expected || !chain.matches(mac, q)) {
                                throw new AuditException("the line of seq " + q.seq() + " in the audit log in " + dir
                                        + " does not follow the one before it: changed or added" + what);
                            }
                            mac = q.mac();
                            expected++;
                        }
                        return;
                    }
                    after.add(p);
                }
            }
        }
        throw new AuditException("the audit log in " + dir + " does not hold the line of seq " + a.seq() + what);
    }

    /**
     * A file's complete lines, last first, read in blocks from its end (a torn tail was removed before). A run of
     * more bytes without a newline than a line can have is handed back cut at that bound (one byte more than
     * {@link Chain#MAX_LINE_BYTES}, so never an audit line) and ends the file: whatever a writer of the folder put
     * there, the reader holds at most a block and a line.
     */
    static final class Backwards {
        private static final int BLOCK = 64 * 1024;
        private final FileChannel ch;
        private long position;
        private byte[] pending = new byte[0];
        private int end;

        Backwards(FileChannel ch) throws IOException {
            this.ch = ch;
            this.position = ch.size();
        }

        /** @return the next line back, without its newline, or null at the start of the file */
        byte[] next() throws IOException {
            while (true) {
                int nl = -1;
                for (int i = end - 2; i >= 0; i--) { // end - 1 is the newline of the line being looked for
                    if (pending[i] == '\n') {
                        nl = i;
                        break;
                    }
                }
                if (nl < 0 && end > Chain.MAX_LINE_BYTES + 1) {
                    byte[] run = java.util.Arrays.copyOfRange(pending, end - (Chain.MAX_LINE_BYTES + 1), end);
                    end = 0;
                    position = 0;
                    return run;
                }
                if (nl >= 0 || (position == 0 && end > 0)) {
                    int start = nl + 1;
                    int stop = end > 0 && pending[end - 1] == '\n' ? end - 1 : end;
                    byte[] line = java.util.Arrays.copyOfRange(pending, start, stop);
                    end = start;
                    return line;
                }
                if (position == 0) {
                    return null;
                }
                int n = (int) Math.min(BLOCK, position);
                ByteBuffer buf = ByteBuffer.allocate(n + end);
                position -= n;
                buf.limit(n);
                while (buf.hasRemaining()) {
                    if (ch.read(buf, position + buf.position()) < 0) {
                        throw new IOException("audit: the file ended while it was read");
                    }
                }
                buf.limit(n + end);
                buf.put(pending, 0, end);
                pending = buf.array();
                end = pending.length;
            }
        }
    }

    /**
     * @return the last complete line of {@code file}, or null if it has none; cuts off a torn tail if asked
     * @throws AuditException if the file ends in more bytes without a newline than a line can have: a crash
     *                        cuts off at most one line, so that is damage, kept for the operator to look at
     */
    private String lastLine(Path file, boolean repair) throws IOException, AuditException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            int window = (int) Math.min(size, Chain.MAX_LINE_BYTES * 2L);
            ByteBuffer buf = ByteBuffer.allocate(window);
            ch.read(buf, size - window);
            byte[] b = buf.array();
            int end = window;
            if (end > 0 && b[end - 1] != '\n') {
                int cut = lastIndexOf(b, end - 1, (byte) '\n') + 1; // 0 when no newline at all
                if (end - cut > Chain.MAX_LINE_BYTES) {
                    throw new AuditException(file + " ends in more than " + Chain.MAX_LINE_BYTES + " bytes without"
                            + " a newline, which no crash leaves; run 'dogama-agent audit verify' and move the"
                            + " damaged log aside");
                }
                if (repair) {
                    LOG.log(System.Logger.Level.WARNING, "audit: {0}: removing a last line cut off by a crash ({1} bytes)",
                            file.getFileName(), end - cut);
                    ch.truncate(size - window + cut);
                    ch.force(true);
                    if (file.getFileName().equals(Segments.file(dir, fileNumber).getFileName())) {
                        fileSize = size - window + cut;
                        channel.position(fileSize);
                    }
                }
                end = cut;
            }
            if (end == 0) {
                return null;
            }
            int start = lastIndexOf(b, end - 2, (byte) '\n') + 1;
            return new String(b, start, end - 1 - start, StandardCharsets.UTF_8);
        }
    }

    private static int lastIndexOf(byte[] b, int from, byte value) {
        for (int i = from; i >= 0; i--) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
    }

    private void openFile(boolean create) throws IOException {
        Path file = Segments.file(dir, fileNumber);
        channel = channels.apply(create
                ? FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        PosixFilePermissions.asFileAttribute(KeyFiles.MODE))
                : FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
        fileSize = channel.size();
        channel.position(fileSize);
        if (create) {
            Fsync.directory(dir);
        }
    }

    /**
     * Queues an event and waits until its line is synced to disk.
     *
     * @return true once written and synced; false if the queue is full, the write failed, or it took
     *         longer than {@code wait}
     */
    public boolean writeDurably(AuditEvent e, long suppressed, Duration wait) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        if (closed.get() || !queue.offer(new Pending(e, suppressed, done))) {
            dropped.incrementAndGet();
            return false;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        if (writing.tryLock()) {
            boolean tookStop;
            try {
                // Once the log is closing, the writer thread alone writes (it ends on the stop and writes what is
                // queued behind it), so no caller writes to a file being closed.
                tookStop = !closed.get() && writeQueued(new ArrayList<>());
            } finally {
                writing.unlock();
            }
            if (tookStop) {
                putStop();
            }
            if (done.isDone()) {
                // In time or not, as a waiting caller would be told.
                return done.join() && System.nanoTime() - deadline <= 0;
            }
        } else {
            LockSupport.unpark(thread);
        }
        try {
            return done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException te) {
            return false;
        }
    }

    /**
     * @return true if queued; a full queue, or free space below the reserve ({@link #RESERVE_BYTES}), drops the
     *         event (counted) rather than wait or take what must be written
     */
    public boolean offer(AuditEvent e, long suppressed) {
        if (closed.get() || lowOnSpace() || !queue.offer(new Pending(e, suppressed, null))) {
            dropped.incrementAndGet();
            return false;
        }
        LockSupport.unpark(thread);
        return true;
    }

    /** @return whether the free space was below the reserve when last read (read again at most once a second) */
    private boolean lowOnSpace() {
        if (System.nanoTime() - nextSpaceCheck < 0) {
            return low;
        }
        synchronized (space) {
            long now = System.nanoTime();
            if (now - nextSpaceCheck < 0) {
                return low;
            }
            nextSpaceCheck = now + SPACE_CHECK_INTERVAL.toNanos();
            long free = usableSpace.getAsLong();
            boolean nowLow = free >= 0 && free < reserve;
            if (nowLow != low) {
                LOG.log(nowLow ? System.Logger.Level.WARNING : System.Logger.Level.INFO, nowLow
                        ? "audit: less than " + reserve + " bytes free in " + dir + "; refusals are counted, not"
                        + " written, until there is more (a mutation's lines still are)"
                        : "audit: space free again in " + dir + "; refusals are written again");
            }
            low = nowLow;
            return low;
        }
    }

    /** @return false after a write failed and until one succeeds again, and for good after a force failed */
    public boolean healthy() {
        return healthy.get() && !stopped;
    }

    /** @return lines written since start */
    public long written() {
        return written.get();
    }

    /** @return failed writes and syncs since start */
    public long errors() {
        return errors.get();
    }

    /** @return events dropped or refused because the queue was full or the log closed */
    public long dropped() {
        return dropped.get();
    }

    /** @return the sequence number of the last line written */
    public long lastSeq() {
        return lastSeq.get();
    }

    /** @return syncs of the log's files that succeeded since it was opened */
    long syncs() {
        return syncs.get();
    }

    /** @return events waiting */
    public int queued() {
        return queue.size();
    }

    private void loop() {
        List<Pending> batch = new ArrayList<>(MAX_BATCH);
        while (true) {
            // Events are taken from the queue only under the lock: a caller that holds it finds its own line there.
            if (queue.isEmpty()) {
                LockSupport.parkNanos(this, SYNC_INTERVAL.toNanos());
            }
            boolean interrupted = Thread.interrupted(); // from close(), as a stop
            Anchor.Head due = null;
            writing.lock();
            try {
                boolean stop = writeQueued(batch) || interrupted;
                if (!stop) {
                    // Also while lines keep coming: a wake that finds work never finds the queue empty, and a
                    // refusal a second would otherwise keep every line unsynced until the kernel's own writeback.
                    if (unsynced && (batch.isEmpty()
                            || System.nanoTime() - unsyncedSince >= SYNC_INTERVAL.toNanos())) {
                        sync(List.of());
                    }
                    if (synced != null && synced.seq() > anchoredSeq
                            && System.nanoTime() - lastAnchorWrite >= SYNC_INTERVAL.toNanos()) {
                        due = synced;
                    }
                } else {
                    // Whatever was queued behind the stop (a racing request) is written too, then the file synced.
                    batch.clear();
                    queue.drainTo(batch);
                    batch.remove(STOP);
                    write(batch);
                    if (unsynced) {
                        sync(List.of());
                    }
                    if (synced != null && synced.seq() > anchoredSeq) {
                        anchor(synced); // a clean stop leaves every line anchored
                    }
                    return;
                }
            } finally {
                writing.unlock();
            }
            if (due != null) {
                // Outside the lock: a mutation's own line never waits for this file's force and rename.
                anchor(due);
            }
        }
    }

    /** Records {@code head} in the anchor file, at most once per {@link #SYNC_INTERVAL} while lines come. */
    private void anchor(Anchor.Head head) {
        if (slots == null) {
            return;
        }
        lastAnchorWrite = System.nanoTime();
        try {
            slots.write(head);
            anchoredSeq = head.seq();
        } catch (IOException e) {
            // The old anchor stays, behind the log: safe, and no reason to refuse a mutation. Tried again later.
            errors.incrementAndGet();
            if (lastAnchorWrite - lastAnchorFailureLog >= FAILURE_LOG_INTERVAL.toNanos()) {
                lastAnchorFailureLog = lastAnchorWrite;
                LOG.log(System.Logger.Level.WARNING, "audit: " + anchor + " cannot be written ("
                        + e.getClass().getSimpleName() + "); it names an earlier line until it can");
            }
        }
    }

    /**
     * Writes one batch of what is queued now into {@code batch}, under the lock.
     *
     * @return whether it took the stop, which the thread ends on and a caller must put back for the thread
     */
    private boolean writeQueued(List<Pending> batch) {
        batch.clear();
        queue.drainTo(batch, MAX_BATCH);
        boolean stop = batch.remove(STOP);
        write(batch);
        return stop;
    }

    /** Puts a stop a caller took back for the writer thread; without the lock, so that the thread can make room. */
    private void putStop() {
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(STOP);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        LockSupport.unpark(thread);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void write(List<Pending> batch) {
        if (batch.isEmpty()) {
            return;
        }
        List<Pending> durable = new ArrayList<>();
        for (Pending p : batch) {
            if (stopped) {
                if (p.done == null) {
                    dropped.incrementAndGet(); // a refusal's line, counted as any line not written
                }
                complete(p, false);
                continue;
            }
            long next = seq + 1;
            String body = Chain.body(next, clock.instant(), p.event, p.suppressed);
            byte[] mac = chain.mac(previous, body.getBytes(StandardCharsets.UTF_8));
            byte[] line = Chain.line(body, mac);
            try {
                reopeningOnce(() -> append(line));
            } catch (IOException e) {
                failed("write", e);
                undo();
                complete(p, false);
                continue;
            }
            fileSize += line.length;
            seq = next;
            previous = mac;
            if (!unsynced) {
                unsynced = true;
                unsyncedSince = System.nanoTime();
            }
            written.incrementAndGet();
            lastSeq.set(seq);
            if (p.done != null) {
                durable.add(p);
            }
        }
        if (!durable.isEmpty()) {
            sync(durable);
        }
    }

    private void append(byte[] line) throws IOException {
        if (torn) {
            cutTorn(); // else the line would be glued onto the failed one's bytes: a false "changed" for verify
        }
        if (fileSize > 0 && fileSize + line.length > maxFileBytes) {
            rotate();
        }
        ByteBuffer buf = ByteBuffer.wrap(line);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
    }

    @FunctionalInterface
    private interface FileStep {
        void run() throws IOException;
    }

    /**
     * Runs a step on the file; if an interrupt closed the channel, opens the file again at its last complete
     * line and runs the step once more, with the interrupt held back until it is done. A file channel is
     * interruptible, and callers write too: a request's thread interrupted by the server's forced stop would
     * otherwise close the log for every later line. While the log is open only an interrupt closes it
     * ({@link #close} sets {@link #shut} first).
     */
    private void reopeningOnce(FileStep step) throws IOException {
        boolean interrupted = false;
        try {
            try {
                step.run();
            } catch (ClosedChannelException e) {
                if (shut) {
                    throw e;
                }
                interrupted = Thread.interrupted();
                if (!channel.isOpen()) {
                    channel = channels.apply(FileChannel.open(Segments.file(dir, fileNumber),
                            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
                    channel.truncate(fileSize); // what the interrupt cut off of a line
                    channel.position(fileSize);
                }
                step.run();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void sync(List<Pending> waiting) {
        if (stopped) {
            waiting.forEach(p -> complete(p, false));
            return;
        }
        try {
            reopeningOnce(() -> channel.force(false));
            unsynced = false;
            if (seq > 0) {
                synced = new Anchor.Head(seq, previous);
            }
            syncs.incrementAndGet();
            healthy.set(true);
            waiting.forEach(p -> complete(p, true));
        } catch (IOException e) {
            failed("sync", e);
            waiting.forEach(p -> complete(p, false));
            stopAfterFailedForce();
        }
    }

    /**
     * After a failed force the log takes no more lines, as the registry and the nonce journal stop: Linux may mark the
     * pages whose writeback failed as clean, so a later force succeeds without them, and a line acknowledged then would
     * follow lines the disk may never have got (after a reboot, verify would call the log changed there, with no
     * tampering). Cutting them off and writing their sequence numbers again would fool whatever already read them (a
     * shipper, the last-sequence gauge). So every later line is refused: a mutation, whose begin line must be on disk
     * first, answers {@code 503 busy} until the agent is restarted on a disk that works, and the start reads the log
     * back as the disk holds it.
     */
    private void stopAfterFailedForce() {
        if (!stopped) {
            stopped = true;
            unsynced = false;
            LOG.log(System.Logger.Level.ERROR, "audit: a force of the log to disk failed: it takes no more lines, "
                    + "and every mutation is refused (503 busy) until the agent is restarted on a working disk");
        }
    }

    /** Truncates a half-written line away, so that the file ends on a complete line again. */
    private void undo() {
        torn = true;
        try {
            cutTorn();
        } catch (IOException e) {
            failed("truncate after a failed write", e);
        }
    }

    /** What a failed write left past the last complete line is cut off; until then nothing is written after it. */
    private void cutTorn() throws IOException {
        channel.truncate(fileSize);
        channel.position(fileSize);
        torn = false;
    }

    /**
     * Continues in the next file. The new file is opened before the old one is closed, so that a
     * failure (no space for a new inode) leaves the writer on the old file, able to try again.
     */
    private void rotate() throws IOException {
        try {
            channel.force(false);
        } catch (ClosedChannelException e) {
            throw e; // an interrupt, not the disk: reopeningOnce opens the file again and rotates once more
        } catch (IOException e) {
            // As a failed sync: the lines of this batch before it are not on disk for sure (stopAfterFailedForce).
            stopAfterFailedForce();
            throw e;
        }
        Path file = Segments.file(dir, fileNumber + 1);
        // CREATE, not CREATE_NEW: an empty file left by an earlier attempt that failed later is taken over, if it is
        // a plain file of the agent's (checked before the open: a FIFO would hang it); never through a link.
        if (RegularFiles.requireIfPresent(file)) {
            Segments.requireOwn(file, dir);
        }
        FileChannel next = channels.apply(FileChannel.open(file, Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(KeyFiles.MODE)));
        try {
            if (next.size() != 0) {
                throw new IOException("audit: " + file.getFileName() + " exists and is not empty");
            }
            Fsync.directory(dir);
        } catch (IOException e) {
            next.close();
            throw e;
        }
        channel.close();
        channel = next;
        fileNumber++;
        fileSize = 0;
        LOG.log(System.Logger.Level.INFO, "audit: rotated to {0} at seq {1}", Segments.file(dir, fileNumber).getFileName(),
                seq + 1);
    }

    private void failed(String what, IOException e) {
        errors.incrementAndGet();
        boolean wasHealthy = healthy.getAndSet(false);
        long now = System.nanoTime();
        if (wasHealthy || now - lastFailureLog > FAILURE_LOG_INTERVAL.toNanos()) {
            lastFailureLog = now;
            LOG.log(System.Logger.Level.ERROR, "audit: the log in " + dir + " cannot be written (" + what + ": "
                    + e.getClass().getSimpleName() + "); mutations are refused (503 busy) until it can");
        }
    }

    private static void complete(Pending p, boolean ok) {
        if (p.done != null) {
            p.done.complete(ok);
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "audit: closing the log failed");
            }
        }
        if (slots != null) {
            try {
                slots.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "audit: closing the anchor failed");
            }
        }
    }

    /** Writes what is queued, syncs, and closes the file; events offered afterwards are dropped. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        while (true) {
            try {
                queue.put(STOP);
                LockSupport.unpark(thread);
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                thread.interrupt();
                break;
            }
        }
        try {
            thread.join(CLOSE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // A writer stuck in a sync on a hung disk is waited for as long as the thread was, not for ever: the
        // file is closed under it then, as it was before callers wrote.
        shut = true;
        boolean locked = false;
        try {
            locked = writing.tryLock(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            closeChannel();
        } finally {
            if (locked) {
                writing.unlock();
            }
        }
    }
}
