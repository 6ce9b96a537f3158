package io.dogama.agent.audit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chain as written by the real writer, and every kind of tampering found at its exact line. */
class AuditLogTest {
    @TempDir
    Path data;

    private Path dir() {
        return data.resolve("audit");
    }

    private Path key() {
        return data.resolve(AuditLog.KEY_FILE_NAME);
    }

    private static AuditEvent event(int i) {
        return AuditEvent.builder(AuditEvent.Kind.END, "POST /v1/instances/{id}/start").instanceId("mc-" + (1000 + i))
                .outcome("ok").status(200).revisions(1, 1).durationMillis(i).peer("10.0.0.5:4123" + (i % 10)).build();
    }

    /** Writes {@code n} lines durably (so they are all on disk when this returns). */
    private void write(int n, long maxFileBytes) throws AuditException {
        try (AuditLog log = AuditLog.open(dir(), maxFileBytes, key(), Clock.systemUTC())) {
            for (int i = 1; i <= n; i++) {
                assertTrue(log.record(event(i)), "line " + i + " written");
            }
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir())) {
            return s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        }
    }

    private static List<String> lines(Path f) throws IOException {
        return new ArrayList<>(Files.readAllLines(f, StandardCharsets.UTF_8));
    }

    private static void rewrite(Path f, List<String> lines) throws IOException {
        Files.writeString(f, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    }

    private Verification.Broken broken() throws AuditException {
        return assertInstanceOf(Verification.Broken.class, AuditLog.verify(dir(), key()));
    }

    @Test
    void intactLogVerifiesAndContinuesAcrossRestarts() throws Exception {
        write(5, 1 << 20);
        write(3, 1 << 20);
        Verification.Intact ok = assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
        assertEquals(8, ok.lines());
        assertEquals(8, ok.lastSeq());
        List<String> all = lines(files().getFirst());
        assertTrue(all.get(0).startsWith("{\"seq\":1,\"time\":\""), all.get(0));
        assertTrue(all.get(7).startsWith("{\"seq\":8,"), all.get(7));
        assertEquals(List.of(all.get(6), all.get(7)), AuditLog.tail(dir(), 2));
    }

    @Test
    void changedLineIsNamed() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        List<String> l = lines(f);
        l.set(3, l.get(3).replace("\"outcome\":\"ok\"", "\"outcome\":\"identity_mismatch\""));
        rewrite(f, l);
        Verification.Broken b = broken();
        assertEquals(f, b.file());
        assertEquals(4, b.line());
        assertEquals(4, b.seq());
        assertTrue(b.reason().contains("changed"), b.reason());
    }

    @Test
    void removedLineIsNamed() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        List<String> l = lines(f);
        l.remove(2); // seq 3
        rewrite(f, l);
        Verification.Broken b = broken();
        assertEquals(3, b.line());
        assertEquals(4, b.seq());
        assertTrue(b.reason().contains("expected seq 3") && b.reason().contains("removed"), b.reason());
    }

    @Test
    void reorderedLinesAreNamed() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        List<String> l = lines(f);
        String s = l.get(4);
        l.set(4, l.get(1));
        l.set(1, s); // seq 5 now on line 2, seq 2 on line 5
        rewrite(f, l);
        Verification.Broken b = broken();
        assertEquals(2, b.line());
        assertEquals(5, b.seq());
        assertTrue(b.reason().contains("reordered"), b.reason());
    }

    @Test
    void insertedCopyOfAnEarlierLineIsNamed() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        List<String> l = lines(f);
        l.add(4, l.get(1)); // a copy of seq 2 after seq 4: line 5
        rewrite(f, l);
        Verification.Broken b = broken();
        assertEquals(5, b.line());
        assertEquals(2, b.seq());
        assertTrue(b.reason().contains("inserted"), b.reason());
    }

    @Test
    void insertedForgedLineIsNamed() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        List<String> l = lines(f);
        // A forger without the key renumbers the rest and makes up a MAC: the first forged line is caught.
        List<String> forged = new ArrayList<>(l.subList(0, 3));
        forged.add(l.get(3).replace("mc-1004", "mc-6666"));
        for (int i = 3; i < l.size(); i++) {
            forged.add(l.get(i).replace("{\"seq\":" + (i + 1) + ",", "{\"seq\":" + (i + 2) + ","));
        }
        rewrite(f, forged);
        Verification.Broken b = broken();
        assertEquals(4, b.line());
        assertEquals(4, b.seq());
    }

    @Test
    void chainContinuesAcrossRotationAndBreaksAtTheBoundary() throws Exception {
        write(40, 4096); // about 300 bytes a line: several files
        List<Path> files = files();
        assertTrue(files.size() >= 3, "rotated: " + files);
        Verification.Intact ok = assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
        assertEquals(40, ok.lines());
        assertEquals(files.size(), ok.files());
        for (Path f : files) {
            assertTrue(Files.size(f) <= 4096, f + " within maxFileBytes");
        }
        // The first line of the second file removed: caught there, not in the first file.
        Path second = files.get(1);
        List<String> l = lines(second);
        long firstSeq = Long.parseLong(l.get(0).substring(7, l.get(0).indexOf(',')));
        l.remove(0);
        rewrite(second, l);
        Verification.Broken b = broken();
        assertEquals(second, b.file());
        assertEquals(1, b.line());
        assertEquals(firstSeq + 1, b.seq());
    }

    /**
     * A durable line is written either by the writer thread or by its own caller when nobody else writes: both
     * at once, from many threads, with best-effort lines between and files rotating, still make one chain with
     * every line in it, and each durable caller was told its line is written.
     */
    @Test
    void linesFromManyThreadsAtOnceMakeOneChain() throws Exception {
        int threads = 12;
        int each = 40;
        List<Thread> started = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger refused = new AtomicInteger();
        try (AuditLog log = AuditLog.open(dir(), 4096, key(), Clock.systemUTC())) {
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int base = t * each * 2;
                Runnable writer = () -> {
                    try {
                        go.await();
                        for (int i = 0; i < each; i++) {
                            if (!log.record(event(base + 2 * i))) {
                                refused.incrementAndGet();
                            }
                            log.note(event(base + 2 * i + 1));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                };
                // Half on virtual threads, as the server's requests are.
                started.add(t % 2 == 0 ? Thread.ofVirtual().start(writer) : Thread.ofPlatform().start(writer));
            }
            go.countDown();
            for (Thread t : started) {
                t.join(Duration.ofSeconds(60));
                assertFalse(t.isAlive(), "a writer is still running after 60 s");
            }
            assertEquals(List.of(), failures);
            assertEquals(0, refused.get(), "durable lines refused");
            assertEquals(0, log.dropped(), "best-effort lines dropped");
        }
        Verification.Intact ok = assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
        assertEquals(threads * each * 2, ok.lines());
        assertTrue(ok.files() >= 3, "rotated while written: " + ok.files() + " files");
    }

    @Test
    void wholeFileRemovedIsNamed() throws Exception {
        write(40, 4096);
        List<Path> files = files();
        Files.delete(files.get(1));
        Verification.Broken b = broken();
        assertEquals(files.get(2), b.file());
        assertEquals(1, b.line());
        assertTrue(b.reason().contains("removed"), b.reason());
    }

    @Test
    void keyFileIsPrivateAndRequired() throws Exception {
        write(1, 1 << 20);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key())));
        assertEquals(32, Files.size(key()));
        for (Path f : files()) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir())));
        // Readable by others: refused, for writing and for verifying.
        Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString("rw-r--r--"));
        assertThrows(AuditException.class, () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()));
        assertThrows(AuditException.class, () -> AuditLog.verify(dir(), key()));
        // Gone while a log exists: not silently replaced (the old lines would no longer verify).
        Files.delete(key());
        AuditException e = assertThrows(AuditException.class,
                () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()));
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
    }

    @Test
    void wrongKeyFailsAtTheFirstLine() throws Exception {
        write(3, 1 << 20);
        Files.write(key(), new byte[32], StandardOpenOption.TRUNCATE_EXISTING);
        Verification.Broken b = broken();
        assertEquals(1, b.line());
    }

    @Test
    void lineCutOffByACrashIsRemovedAtTheNextStart() throws Exception {
        write(3, 1 << 20);
        Path f = files().getFirst();
        Files.writeString(f, "{\"seq\":4,\"time\":\"20", StandardOpenOption.APPEND);
        Verification.Broken torn = broken();
        assertEquals(4, torn.line());
        write(1, 1 << 20);
        Verification.Intact ok = assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
        assertEquals(4, ok.lines());
    }

    @Test
    void aTailLongerThanAnyLineIsDamageAndRefusesTheStartLeavingItAsFound() throws Exception {
        write(3, 1 << 20);
        Path f = files().getFirst();
        byte[] intact = Files.readAllBytes(f);
        // Lines are at most 4 KiB and the writer looks at the last 8 KiB: 5,000 bytes of damage end after
        // a newline inside that window, 9,000 leave no newline in it.
        for (int length : new int[] {5_000, 9_000}) {
            byte[] damaged = Arrays.copyOf(intact, intact.length + length);
            Arrays.fill(damaged, intact.length, damaged.length, (byte) 'x');
            Files.write(f, damaged);
            AuditException e = assertThrows(AuditException.class,
                    () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()), length + " bytes");
            assertTrue(e.getMessage().contains("without a newline"), e.getMessage());
            assertArrayEquals(damaged, Files.readAllBytes(f), length + " bytes: the damage is kept as found");
        }
    }

    private Path head() {
        return data.resolve(AuditLog.HEAD_FILE_NAME);
    }

    private long anchoredSeq() throws AuditException {
        return io.dogama.agent.audit.internal.Anchor.read(head()).orElseThrow().seq();
    }

    /**
     * The anchor is written in place, never by a new file: a data directory's file system out of inodes (a container
     * can bring that about below an allowed root on the same file system) froze it behind the log, silently, until
     * the next start refused the log as changed. Its inode stays the one the start made while lines come.
     */
    @Test
    void theAnchorIsWrittenInPlaceWhileLinesCome() throws Exception {
        write(1, 1 << 20);
        try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
            Object inode = Files.readAttributes(head(), java.nio.file.attribute.BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).fileKey();
            for (int n = 2; n <= 4; n++) {
                assertTrue(log.record(event(n)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (anchoredSeq() != n) {
                    assertTrue(System.nanoTime() < deadline, "the anchor never reached seq " + n);
                    LockSupport.parkNanos(10_000_000);
                }
                assertEquals(inode, Files.readAttributes(head(), java.nio.file.attribute.BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS).fileKey(), "the anchor was made anew at seq " + n);
            }
            // the writes take turns: the slot not written last names the line before
            byte[] file = Files.readAllBytes(head());
            assertEquals(8192, file.length);
            java.util.Set<String> seqs = java.util.Set.of(new String(file, 0, 19, StandardCharsets.US_ASCII),
                    new String(file, 4096, 19, StandardCharsets.US_ASCII));
            assertEquals(java.util.Set.of(String.format("%019d", 3), String.format("%019d", 4)), seqs);
        }
    }

    /** An earlier agent's one-line anchor naming the log's real last line: the start goes on, and writes slots. */
    @Test
    void anEarlierAgentsOneLineAnchorIsContinuedFrom() throws Exception {
        write(3, 1 << 20);
        io.dogama.agent.audit.internal.Anchor.Head three = io.dogama.agent.audit.internal.Anchor.read(head())
                .orElseThrow();
        Files.writeString(head(), "3 " + java.util.HexFormat.of().formatHex(three.mac()) + "\n");
        assertEquals(3, anchoredSeq());
        write(1, 1 << 20);
        assertEquals(4, anchoredSeq());
        assertEquals(8192, Files.size(head()));
        assertEquals(4, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key(), true)).lastSeq());
    }

    /**
     * A crash in the middle of an anchor write tears at most the slot being written: the other one, one line behind,
     * stands, and the start goes on from it. A file neither of whose slots is whole is not the agent's.
     */
    @Test
    void aTornAnchorSlotLeavesTheOtherOne() throws Exception {
        write(3, 1 << 20);
        write(1, 1 << 20); // a second start: the slots now name two different lines
        byte[] both = Files.readAllBytes(head());
        int slot = both.length / 2;
        long newest = anchoredSeq();
        assertEquals(4, newest);
        for (int i = 0; i < 2; i++) {
            byte[] torn = both.clone();
            String text = new String(torn, i * slot, slot, StandardCharsets.US_ASCII);
            if (!text.startsWith(String.format("%019d", newest))) {
                continue;
            }
            torn[i * slot + 30] ^= 1; // one bit of the newer slot's MAC
            Files.write(head(), torn);
            assertTrue(anchoredSeq() < newest, "the torn slot was taken");
            try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
                assertEquals(4, log.lastSequence());
            }
            torn = Files.readAllBytes(head());
            torn[30] ^= 1;
            torn[slot + 30] ^= 1;
            Files.write(head(), torn);
            assertTrue(refusedStart().getMessage().contains("is not the agent's record of its last audit line"));
            return;
        }
        fail("no slot names seq " + newest);
    }

    private Verification.Broken brokenOwn() throws AuditException {
        return assertInstanceOf(Verification.Broken.class, AuditLog.verify(dir(), key(), true));
    }

    private AuditException refusedStart() {
        return assertThrows(AuditException.class, () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close());
    }

    /**
     * Lines cut off the end at a line boundary while the agent was stopped: the chain still verifies, and before the
     * anchor the agent went on from the cut, reusing the sequence numbers (so the README's comparison with the scraped
     * last sequence passed again after a few lines). The start refuses, leaving the log as found; verify names it.
     */
    @Test
    void aLogCutShortAtALineBoundaryRefusesTheStartAndVerifyNamesIt() throws Exception {
        write(6, 1 << 20);
        Path f = files().getFirst();
        rewrite(f, lines(f).subList(0, 4));
        byte[] cut = Files.readAllBytes(f);
        AuditException e = refusedStart();
        assertTrue(e.getMessage().contains("ends at seq 4: lines were cut off its end; this agent wrote it up to seq 6"),
                e.getMessage());
        assertArrayEquals(cut, Files.readAllBytes(f), "left as found");
        Verification.Broken b = brokenOwn();
        assertEquals(5, b.seq());
        assertTrue(b.reason().contains("cut off its end"), b.reason());
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()), "as a chain alone, it holds");
        Files.delete(head()); // the operator accepts the log as it is
        write(1, 1 << 20);
        assertEquals(5, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key(), true)).lastSeq());
    }

    /** An emptied (or moved) folder is not started again as a new chain under the same key. */
    @Test
    void anEmptiedFolderIsNotStartedAgainAsANewChainUnderTheSameKey() throws Exception {
        write(3, 1 << 20);
        for (Path f : files()) {
            Files.delete(f);
        }
        assertTrue(refusedStart().getMessage().contains("holds no file, but this agent wrote it up to seq 3"));
        assertTrue(files().isEmpty(), "nothing made");
        assertTrue(brokenOwn().reason().contains("emptied"));
    }

    /**
     * Another chain under the same key (an archive of the folder, longer than the live one) put in the live one's
     * place verifies as a chain; its line at the anchored sequence number is not the agent's.
     */
    @Test
    void anotherChainUnderTheSameKeyInTheLogsPlaceIsRefused() throws Exception {
        write(9, 1 << 20);
        Path archive = Files.createDirectories(data.resolve("archive"));
        for (Path f : files()) {
            Files.move(f, archive.resolve(f.getFileName()));
        }
        Files.delete(head()); // archived, then a new log on purpose, as the README says
        write(3, 1 << 20);
        for (Path f : files()) {
            Files.delete(f);
        }
        try (Stream<Path> s = Files.list(archive)) {
            for (Path f : s.toList()) {
                Files.move(f, dir().resolve(f.getFileName()));
            }
        }
        assertTrue(refusedStart().getMessage().contains("is not the one this agent wrote: the log was replaced"));
        Verification.Broken b = brokenOwn();
        assertEquals(3, b.seq());
        assertTrue(b.reason().contains("replaced"), b.reason());
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()), "as a chain alone, it holds");
    }

    /**
     * A line added after the last one while the agent was stopped: before, the start went on from it (its MAC never
     * checked), so the log broke there for good and hid whatever was changed after it. The start refuses.
     */
    @Test
    void aLineAddedWhileStoppedRefusesTheStart() throws Exception {
        write(3, 1 << 20);
        Path f = files().getFirst();
        List<String> all = lines(f);
        all.add(all.getLast().replace("\"seq\":3,", "\"seq\":4,"));
        rewrite(f, all);
        assertTrue(refusedStart().getMessage().contains("the line of seq 4 in the audit log in " + dir()
                + " does not follow the one before it"));
    }

    /**
     * A crash leaves the anchor behind the log (it is written about once a second): the lines after it chain from
     * it, so the start goes on; the anchor is written while lines come, not only at a clean stop.
     */
    @Test
    void anAnchorBehindTheLogAsACrashLeavesItIsContinuedFrom() throws Exception {
        write(3, 1 << 20);
        byte[] atThree = Files.readAllBytes(head());
        assertEquals(3, anchoredSeq());
        try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
            assertTrue(log.record(event(4)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (anchoredSeq() != 4) {
                assertTrue(System.nanoTime() < deadline, "the anchor never reached seq 4 while the log was open");
                LockSupport.parkNanos(10_000_000);
            }
            assertTrue(log.record(event(5)));
        }
        Files.write(head(), atThree); // as a crash right after line 3's anchor would leave it
        write(1, 1 << 20);
        assertEquals(6, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key(), true)).lastSeq());
        Files.writeString(head(), "7 " + "0".repeat(64) + "\n");
        assertTrue(refusedStart().getMessage().contains("ends at seq 6"));
        Files.writeString(head(), "not an anchor\n");
        assertTrue(refusedStart().getMessage().contains("is not the agent's record of its last audit line"));
    }

    /**
     * Someone who can write the log's storage but not the data directory (the README puts the log on a file system
     * of its own) plants a link, named as the newest log file, to a key of the agent's: the start's repair of a
     * torn tail would cut the key short (every later start refused, every line unverifiable). Refused before any
     * open; what it leads to is untouched; the verifier and the tail refuse it too.
     */
    @Test
    void aLogFileThatIsALinkIsRefusedAndWhatItLeadsToIsUntouched() throws Exception {
        write(3, 1 << 20);
        byte[] secret = "k".repeat(32).getBytes(StandardCharsets.US_ASCII); // no newline: a "torn tail"
        Path victim = Files.write(data.resolve("victim.key"), secret);
        Path planted = Files.createSymbolicLink(dir().resolve("audit-000002.jsonl"), victim);
        AuditException e = assertThrows(AuditException.class,
                () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close());
        assertTrue(e.getMessage().contains("audit-000002.jsonl is a symbolic link, not a regular file"), e.getMessage());
        assertArrayEquals(secret, Files.readAllBytes(victim), "the file the link leads to is untouched");
        assertTrue(assertThrows(AuditException.class, () -> AuditLog.verify(dir(), key())).getMessage()
                .contains("symbolic link"));
        assertThrows(AuditException.class, () -> AuditLog.tail(dir(), 5));
        Files.delete(planted);
        write(1, 1 << 20);
        assertEquals(4, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key())).lines());
    }

    /**
     * A second name is not refused: a hard-link backup of the folder (`cp -al`, rsnapshot) must not stop the agent,
     * and a hard link to one of its other files needs the data directory's access (0700) to name that file.
     */
    @Test
    void aLogFileWithASecondNameFromAHardLinkBackupIsWrittenOn() throws Exception {
        write(3, 1 << 20);
        Path backup = Files.createDirectories(data.resolve("backup"));
        Files.createLink(backup.resolve(files().getFirst().getFileName()), files().getFirst());
        write(1, 1 << 20);
        assertEquals(4, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key(), true)).lastSeq());
    }

    /**
     * A FIFO named as a log file or as the lock: opened to write, it blocks open(2) until a reader comes, so the
     * start would hang for ever (and a supervisor that restarts on exit never acts); the verifier would hang the
     * same way. Both answer within the bound instead.
     */
    @Test
    void aFifoNamedLikeALogFileOrTheLockHangsNeitherTheStartNorTheVerifier() throws Exception {
        write(3, 1 << 20);
        for (String name : List.of("audit-000002.jsonl", AuditLog.LOCK_FILE_NAME)) {
            Path fifo = dir().resolve(name);
            Files.deleteIfExists(fifo);
            mkfifo(fifo);
            Throwable start = within(fifo, () -> {
                AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close();
                return null;
            });
            assertInstanceOf(AuditException.class, start, name);
            assertTrue(start.getMessage().contains("not a regular file"), start.getMessage());
            if (name.endsWith(".jsonl")) {
                assertInstanceOf(AuditException.class, within(fifo, () -> AuditLog.verify(dir(), key())), name);
            }
            Files.delete(fifo);
        }
        write(1, 1 << 20);
        assertEquals(4, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key())).lines());
    }

    /** A log file someone else owns would stay writable by them: the writer refuses it (the verifier reads it). */
    @Test
    void aLogFileOfAnotherOwnerIsRefusedByTheWriter() throws Exception {
        assertEquals(0, Files.getAttribute(data, "unix:uid"), "chown needs root: the tests run as root");
        write(3, 1 << 20);
        Path f = files().getFirst();
        Files.setAttribute(f, "unix:uid", 4242, LinkOption.NOFOLLOW_LINKS);
        AuditException e = assertThrows(AuditException.class,
                () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close());
        assertTrue(e.getMessage().contains("owned by UID 4242, not by the folder's owner"), e.getMessage());
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
    }

    private static void mkfifo(Path at) throws Exception {
        Process p = new ProcessBuilder("mkfifo", at.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
    }

    /**
     * @return what {@code call} threw (null if it returned) within a bound; if it is still stuck then, its FIFO is
     *         opened from the other side to let it go, and the test fails
     */
    private static Throwable within(Path fifo, Callable<?> call) throws Exception {
        CompletableFuture<Throwable> r = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                call.call();
                r.complete(null);
            } catch (Throwable t) {
                r.complete(t);
            }
        });
        try {
            return r.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException stuck) {
            // O_RDWR on a FIFO does not block: it is the reader the stuck open(2) waits for
            FileChannel ch = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                r.get(30, TimeUnit.SECONDS);
            } finally {
                ch.close();
            }
            return fail("hung in open(2) on the FIFO " + fifo.getFileName() + " for 30 s");
        }
    }

    /**
     * Two agents given one audit folder (each has its own data directory, so the registry's lock does not
     * see them) would write over each other's lines at their own offsets: the second is refused while the
     * first writes there, and starts once it has closed.
     */
    @Test
    void aFolderAnotherAgentWritesRefusesTheStart() throws Exception {
        write(1, 1 << 20);
        try (AuditLog first = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
            AuditException e = assertThrows(AuditException.class,
                    () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close());
            assertTrue(e.getMessage().contains("in use by another agent"), e.getMessage());
            assertTrue(first.record(event(2)), "the first agent's log is unaffected");
        }
        try (AuditLog next = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
            assertTrue(next.record(event(3)));
        }
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
    }

    /**
     * The lock file made a hard link to the audit key (or to a log file): its POSIX lock would be dropped the first
     * time the agent closed that file, and a second agent could then write the same folder. Refused at the start.
     */
    @Test
    void aLockFileWithASecondNameRefusesTheStart() throws Exception {
        write(1, 1 << 20);
        Path lock = dir().resolve(AuditLog.LOCK_FILE_NAME);
        Files.delete(lock);
        Files.createLink(lock, key());
        AuditException e = assertThrows(AuditException.class,
                () -> AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC()).close());
        assertTrue(e.getMessage().contains("is the same file as " + key()), e.getMessage());
        Files.delete(lock);
        try (AuditLog next = AuditLog.open(dir(), 1 << 20, key(), Clock.systemUTC())) {
            assertTrue(next.record(event(2)), "starts once the second name is gone");
        }
        assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key()));
    }

    /** Sends 30 unauthenticated refusals more than the limit lets through in a second. */
    private static void refuseUnauthenticatedPastTheLimit(AuditLog log) {
        AuditEvent refused = AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").outcome("unauthenticated")
                .status(401).peer("192.0.2.1:5000").build();
        for (int i = 0; i < AuditLog.UNAUTHENTICATED_PER_SECOND + 30; i++) {
            log.noteUnauthenticated(refused);
        }
    }

    @Test
    void unauthenticatedRefusalsAreRateLimited() throws Exception {
        Clock fixed = Clock.fixed(java.time.Instant.parse("2026-12-02T05:00:00Z"), java.time.ZoneOffset.UTC);
        try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), fixed)) {
            refuseUnauthenticatedPastTheLimit(log);
            assertEquals(30, log.suppressed());
        }
        assertEquals(AuditLog.UNAUTHENTICATED_PER_SECOND, lines(files().getFirst()).size());
    }

    /**
     * A flood of unsigned requests uses up its own budget only: the refusal of a correctly signed request sent again
     * (a captured one, the most telling line there is) is still written, with its peer, in the same second.
     */
    @Test
    void aFloodOfUnsignedRefusalsDoesNotCrowdOutASignedOneSentAgain() throws Exception {
        Clock fixed = Clock.fixed(java.time.Instant.parse("2026-12-02T05:00:00Z"), java.time.ZoneOffset.UTC);
        try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), fixed)) {
            refuseUnauthenticatedPastTheLimit(log);
            log.noteSignedRefusal(AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").outcome("replayed_request")
                    .status(401).peer("198.51.100.7:4000").build());
            assertEquals(30, log.suppressed());
        }
        List<String> all = lines(files().getFirst());
        assertEquals(AuditLog.UNAUTHENTICATED_PER_SECOND + 1, all.size());
        assertTrue(all.getLast().contains("replayed_request") && all.getLast().contains("198.51.100.7:4000"),
                all.getLast());
    }

    /** What the limit held back is written on the next refusal that is let through, so the count is never lost. */
    @Test
    void theRefusalsHeldBackAreCountedOnTheNextLine() throws Exception {
        java.util.concurrent.atomic.AtomicLong millis = new java.util.concurrent.atomic.AtomicLong(
                java.time.Instant.parse("2026-12-02T05:00:00Z").toEpochMilli());
        Clock moving = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return java.time.Instant.ofEpochMilli(millis.get());
            }
        };
        AuditEvent refused = AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").outcome("unauthenticated")
                .status(401).peer("192.0.2.1:5000").build();
        try (AuditLog log = AuditLog.open(dir(), 1 << 20, key(), moving)) {
            for (int i = 0; i < AuditLog.UNAUTHENTICATED_PER_SECOND + 30; i++) {
                log.noteUnauthenticated(refused);
            }
            millis.addAndGet(1000);
            log.noteUnauthenticated(refused);
        }
        List<String> all = lines(files().getFirst());
        assertEquals(AuditLog.UNAUTHENTICATED_PER_SECOND + 1, all.size());
        assertTrue(all.getLast().contains(",\"suppressedBefore\":30"), all.getLast());
        assertFalse(all.get(all.size() - 2).contains("suppressedBefore"), all.get(all.size() - 2));
    }

    /** A last line that ends as a line does but is not an audit line is damage, not a crash's: kept, and refused. */
    @Test
    void aLastLineThatIsNotAnAuditLineRefusesTheStartLeavingItAsFound() throws Exception {
        write(3, 1 << 20);
        Path f = files().getFirst();
        Files.delete(head()); // the chain's own check, not the anchor's
        Files.writeString(f, "garbage\n", StandardOpenOption.APPEND);
        byte[] damaged = Files.readAllBytes(f);
        assertTrue(refusedStart().getMessage().contains("is not an audit line"));
        assertArrayEquals(damaged, Files.readAllBytes(f));
    }

    /** A crash right after a rotation made the next file leaves it empty: the chain goes on from the file before. */
    @Test
    void anEmptyNewestFileIsContinuedFromTheFileBefore() throws Exception {
        write(40, 4096);
        List<Path> before = files();
        Path empty = Files.createFile(dir().resolve(String.format("audit-%06d.jsonl", before.size() + 1)),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        write(1, 4096);
        assertEquals(1, lines(empty).size(), "written into the empty file");
        assertEquals(41, assertInstanceOf(Verification.Intact.class, AuditLog.verify(dir(), key(), true)).lastSeq());
    }

    /**
     * The tail prints lines unverified: one planted with terminal escapes is shown escaped (an agent's JSON line
     * never holds a raw control character), and one without end is cut at the longest an audit line can be.
     */
    @Test
    void theTailShowsPlantedControlCharactersEscapedAndCutsALineWithoutEnd() throws Exception {
        write(2, 1 << 20);
        Path f = files().getFirst();
        List<String> real = lines(f);
        Files.writeString(f, "\u001b]0;owned\u0007\u001b[2Jcleared \u202eevil\u009b\n" + "y".repeat(100_000),
                StandardOpenOption.APPEND);
        List<String> tail = AuditLog.tail(dir(), 4);
        assertEquals(4, tail.size(), tail::toString);
        assertEquals(real, tail.subList(0, 2), "the agent's own lines as written");
        assertEquals("\\u001b]0;owned\\u0007\\u001b[2Jcleared \\u202eevil\\u009b", tail.get(2));
        assertEquals("y".repeat(4096) + " ... [" + (100_000 - 4096) + " more bytes]", tail.get(3));
    }

    /** A line too long to be an audit line is named, even when it ends in a newline. */
    @Test
    void aLineLongerThanAnyAuditLineIsNamed() throws Exception {
        write(3, 1 << 20);
        Path f = files().getFirst();
        List<String> all = lines(f);
        all.add(1, "x".repeat(5_000));
        rewrite(f, all);
        Verification.Broken b = broken();
        assertEquals(2, b.line());
        assertEquals("not an audit line: changed", b.reason());
    }

    @Test
    void aFolderThatIsALinkOrTooSmallAFileIsRefused() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> AuditLog.open(dir(), 4095, key(), Clock.systemUTC()));
        Path real = Files.createDirectories(data.resolve("real-audit"));
        Files.createSymbolicLink(dir(), real);
        assertTrue(refusedStart().getMessage().contains("is not a directory"));
    }

    @Test
    void eventsCarryOnlyCheckedSyntax() {
        // Nothing free-form can reach a line: a raw path, a secret-looking value, a host path are refused.
        assertThrows(IllegalArgumentException.class, () -> AuditEvent.builder(AuditEvent.Kind.REFUSED,
                "GET /v1/instances/../../etc").build());
        assertThrows(IllegalArgumentException.class, () -> AuditEvent.builder(AuditEvent.Kind.REFUSED, "-")
                .outcome("c2VjcmV0LXZhbHVlLWhlcmU=").build());
        assertThrows(IllegalArgumentException.class, () -> AuditEvent.builder(AuditEvent.Kind.REFUSED, "-")
                .instanceId("/srv/dogama/instances/x").build());
        assertThrows(IllegalArgumentException.class, () -> AuditEvent.builder(AuditEvent.Kind.REFUSED, "-")
                .peer("evil\"}\n{\"seq\":1").build());
        assertThrows(IllegalArgumentException.class, () -> AuditEvent.builder(AuditEvent.Kind.END, "-")
                .planDigest("GREETING=hello").build());
        assertFalse(AuditEvent.builder(AuditEvent.Kind.REFUSED, "-").rules(List.of("unsafe_ancestor")).build()
                .rules().isEmpty());
    }
}
