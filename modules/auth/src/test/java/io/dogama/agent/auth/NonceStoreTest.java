package io.dogama.agent.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.internal.Admission;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class NonceStoreTest {
    private static final Instant T0 = Instant.parse("2026-12-01T19:04:05Z");

    @TempDir
    Path dir;
    private final TestClock clock = new TestClock(T0);

    private static String nonce(int i) {
        return String.format("nonce-%016d", i); // 22 characters
    }

    @Test
    void persistentStoreRemembersAcrossARestart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.ADMITTED, store.admit(nonce(1), T0));
        }
        clock.advance(Duration.ofSeconds(5));
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.REPLAYED, store.admit(nonce(1), T0));
            assertEquals(Admission.ADMITTED, store.admit(nonce(2), T0));
            assertEquals(T0, store.rememberedSince());
        }
    }

    @Test
    void restartDropsExpiredEntriesAndShrinksTheJournal() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            for (int i = 0; i < 5; i++) {
                assertEquals(Admission.ADMITTED, store.admit(nonce(i), T0));
            }
        }
        assertEquals(6, Files.readAllLines(dir.resolve("nonces.journal")).size());
        clock.set(T0.plus(NonceStore.RETENTION).plusSeconds(1));
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(0, store.size());
        }
        assertEquals(1, Files.readAllLines(dir.resolve("nonces.journal")).size());
    }

    @Test
    void journalFilesAreOwnerOnly() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            store.admit(nonce(1), T0);
        }
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("nonces.journal"))));
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("nonces.lock"))));
    }

    @Test
    void freshJournalRefusesRequestsFromBeforeItBegan() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(1), T0.minusMillis(1)));
            assertEquals(Admission.ADMITTED, store.admit(nonce(1), T0));
        }
    }

    @Test
    void tornFinalLineIsDroppedButCorruptLinesRefuseTheStart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            store.admit(nonce(1), T0);
        }
        Path journal = dir.resolve("nonces.journal");
        Files.writeString(journal, "17646158", StandardOpenOption.APPEND);
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(1, store.size());
            // remembered, and anyway signed before a restart that found the journal cut
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(1), T0));
        }
        Files.writeString(journal, "\n", StandardOpenOption.APPEND); // whole again (a torn line is tested below)
        Files.writeString(journal, "not a line\n", StandardOpenOption.APPEND);
        AuthException e = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
        assertTrue(e.getMessage().contains("line 3 is corrupt"), e.getMessage());
        Files.writeString(journal, "something else entirely\n");
        AuthException header = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
        assertTrue(header.getMessage().contains("unknown header"), header.getMessage());
    }

    /**
     * A line longer than any the agent writes is damage, not a write a crash cut short: it refuses the
     * start, in the middle of a segment and at its end, and is never held whole (the journal is read
     * in small pieces, so a line of megabytes must not be buffered up).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // an unbounded buffer: a loop without end
    void aLineLongerThanAnyTheAgentWritesRefusesTheStart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            store.admit(nonce(1), T0);
        }
        Path journal = dir.resolve("nonces.journal");
        byte[] whole = Files.readAllBytes(journal);
        String endless = "1".repeat(4 << 20);
        Files.writeString(journal, endless + " " + nonce(2) + "\n", StandardOpenOption.APPEND);
        AuthException middle = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
        assertTrue(middle.getMessage().contains("line 3 is corrupt"), middle.getMessage());
        Files.write(journal, whole);
        Files.writeString(journal, "x".repeat(200), StandardOpenOption.APPEND); // no newline: not a torn append
        AuthException end = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
        assertTrue(end.getMessage().contains("line 3 is corrupt"), end.getMessage());
        Files.writeString(journal, "DOGAMA-NONCES-V1 " + "9".repeat(300) + "\n");
        AuthException header = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
        assertTrue(header.getMessage().contains("unknown header"), header.getMessage());
    }

    /**
     * One nonce in the journal twice, the shorter expiry first: a segment written after the nonce had
     * expired and was used again. The restarted memory keeps it until the later expiry.
     */
    @Test
    void aNonceJournaledTwiceIsRememberedUntilItsLaterExpiry() throws Exception {
        long since = T0.toEpochMilli();
        long first = T0.plus(NonceStore.RETENTION).toEpochMilli();
        long second = first + 50_000;
        Files.writeString(dir.resolve("nonces.journal"), "DOGAMA-NONCES-V1 " + since + "\n" + first + " " + nonce(7)
                + "\n");
        Files.writeString(dir.resolve("nonces.journal.1"), "DOGAMA-NONCES-V1 " + since + "\n" + second + " "
                + nonce(7) + "\n");
        clock.set(Instant.ofEpochMilli(first).minusSeconds(5)); // both lines are unexpired at the restart
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            clock.set(Instant.ofEpochMilli(first).plusSeconds(5));
            assertEquals(1, store.size());
            assertEquals(Admission.REPLAYED, store.admit(nonce(7), Instant.ofEpochMilli(second)
                    .minus(NonceStore.RETENTION)));
        }
    }

    /**
     * Issue 15: a journal cut mid-line while the agent was stopped may have lost a nonce that was
     * answered (the cut line's, or one an intruder removed): no request signed before the restart
     * is accepted, however its clock was set, and fresh ones are once the window has passed.
     */
    @Test
    void aJournalCutMidLineRefusesEveryRequestSignedBeforeTheRestart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.ADMITTED, store.admit(nonce(1), T0));
            assertEquals(Admission.ADMITTED, store.admit(nonce(2), T0.plusSeconds(29))); // a client clock ahead
        }
        Path journal = dir.resolve("nonces.journal");
        byte[] whole = Files.readAllBytes(journal);
        Files.write(journal, java.util.Arrays.copyOf(whole, whole.length - 5)); // nonce 2's line, cut
        clock.advance(Duration.ofSeconds(1));
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(2), T0.plusSeconds(29)), "a replay");
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(1), T0));
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(3), clock.instant()), "signed before the start");
            clock.advance(Authenticator.WINDOW);
            assertEquals(Admission.ADMITTED, store.admit(nonce(3), clock.instant()));
        }
    }

    /** A journal deleted while the agent was stopped (its lock file tells an agent ran here) is no replay hole. */
    @Test
    void aDeletedJournalRefusesEveryRequestSignedBeforeTheRestart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.ADMITTED, store.admit(nonce(1), T0.plusSeconds(29)));
        }
        Files.delete(dir.resolve("nonces.journal"));
        clock.advance(Duration.ofSeconds(1));
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(1), T0.plusSeconds(29)), "a replay");
            clock.advance(Authenticator.WINDOW);
            assertEquals(Admission.ADMITTED, store.admit(nonce(2), clock.instant()));
        }
    }

    @Test
    void secondStoreOnTheSameDirectoryIsRefused() throws Exception {
        try (NonceStore first = NonceStore.persistent(dir, 10, clock)) {
            AuthException e = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
            assertEquals(Admission.ADMITTED, first.admit(nonce(1), T0));
        }
    }

    @Test
    void missingDataDirectoryIsRefused() {
        AuthException e = assertThrows(AuthException.class,
                () -> NonceStore.persistent(dir.resolve("absent"), 10, clock));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void unexpiredEntriesAboveCapacityAreKeptAfterARestart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 5, clock)) {
            for (int i = 0; i < 5; i++) {
                store.admit(nonce(i), T0);
            }
        }
        try (NonceStore store = NonceStore.persistent(dir, 2, clock)) {
            assertEquals(5, store.size());
            assertEquals(0, store.refusedFull());
            assertEquals(Admission.FULL, store.admit(nonce(9), T0));
            assertEquals(Admission.REPLAYED, store.admit(nonce(4), T0));
            // Counted for the metrics, apart from other refusals: an operator must tell a full memory from a slow disk.
            assertEquals(1, store.refusedFull());
            assertEquals(0, store.refusedStalled());
        }
    }

    @Test
    void expiredJournalSegmentsAreDeletedWhileRunningAndLiveNoncesAreStillRemembered() throws Exception {
        int total = 3 * 4096;
        try (NonceStore store = NonceStore.persistent(dir, 100_000, clock)) {
            for (int i = 0; i < total; i++) {
                // one request every 10 ms: about 6,000 nonces are live at any time
                clock.set(T0.plusMillis(10L * i));
                assertEquals(Admission.ADMITTED, store.admit(nonce(i), clock.instant()));
            }
            // 123 s of requests; what is kept is the live minute plus at most two 10 s segments.
            long lines = journalLines();
            assertTrue(lines > 6000 && lines < 8100, "journal lines: " + lines);
            assertEquals(Admission.REPLAYED, store.admit(nonce(total - 1), clock.instant()));
        }
        try (NonceStore store = NonceStore.persistent(dir, 100_000, clock)) {
            assertEquals(Admission.REPLAYED, store.admit(nonce(total - 6000), clock.instant()));
            int live = store.size();
            assertTrue(live >= 6000 && live <= 6002, "live entries after restart: " + live);
        }
    }

    private long journalLines() throws Exception {
        long lines = 0;
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.getFileName().toString().startsWith("nonces.journal")).toList()) {
                lines += Files.readAllLines(p).size() - 1; // without the header
            }
        }
        return lines;
    }

    @Test
    void concurrentUsesOfOneNonceAdmitExactlyOne() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 1000, clock);
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (int round = 0; round < 20; round++) {
                String n = nonce(round);
                CountDownLatch go = new CountDownLatch(1);
                List<Callable<Admission>> tasks = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    tasks.add(() -> {
                        go.await();
                        return store.admit(n, T0);
                    });
                }
                List<Future<Admission>> futures = new ArrayList<>();
                for (Callable<Admission> task : tasks) {
                    futures.add(pool.submit(task));
                }
                go.countDown();
                int admitted = 0;
                for (Future<Admission> f : futures) {
                    if (f.get(10, TimeUnit.SECONDS) == Admission.ADMITTED) {
                        admitted++;
                    }
                }
                assertEquals(1, admitted, "round " + round);
            }
        }
    }

    @Test
    void inMemoryStoreForgetsWithTheProcessSoItRefusesOlderRequests() {
        NonceStore store = NonceStore.inMemory(10, clock);
        assertEquals(T0, store.rememberedSince());
        assertEquals(Admission.BEFORE_MEMORY, store.admit(nonce(1), T0.minusSeconds(1)));
        assertEquals(Admission.ADMITTED, store.admit(nonce(1), T0));
        assertEquals(Admission.REPLAYED, store.admit(nonce(1), T0));
    }

    @Test
    void capacityIsValidated() {
        assertThrows(IllegalArgumentException.class, () -> NonceStore.inMemory(0, clock));
        assertThrows(IllegalArgumentException.class, () -> NonceStore.inMemory(NonceStore.MAX_CAPACITY + 1, clock));
    }

    @Test
    void journalIsPlainTextWithoutSecrets() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            store.admit(nonce(7), T0);
        }
        String text = Files.readString(dir.resolve("nonces.journal"), StandardCharsets.US_ASCII);
        assertEquals("DOGAMA-NONCES-V1 " + T0.toEpochMilli() + "\n"
                + T0.plus(NonceStore.RETENTION).toEpochMilli() + " " + nonce(7) + "\n", text);
    }
}
