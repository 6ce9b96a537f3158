package io.dogama.agent.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What someone who can write the data directory (root, the agent's UID, a restored backup) may leave where the
 * nonce journal's files go: a FIFO, opened to write, blocked open(2) until a reader came, so the start hung for
 * ever with no message; a link led the lock's create to a file anywhere (root's, in a host install). Each is refused
 * at once, naming the file, and nothing is made through a link.
 */
class PlantedJournalEntriesTest {
    @TempDir
    Path dir;

    private final TestClock clock = TestClock.at("2026-01-01T00:00:00Z");

    @Test
    void aFifoInPlaceOfTheLockOrTheJournalRefusesTheStartInsteadOfHangingIt() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(0, store.size()); // the files made once, as a first start leaves them
        }
        for (String name : List.of("nonces.lock", "nonces.journal")) {
            Path entry = dir.resolve(name);
            byte[] before = Files.readAllBytes(entry);
            Files.delete(entry);
            mkfifo(entry);
            Throwable refused = within(entry);
            assertInstanceOf(AuthException.class, refused, name);
            Files.delete(entry);
            Files.write(entry, before);
        }
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(0, store.size(), "starts again once put back");
        }
    }

    @Test
    void aLinkInPlaceOfTheLockIsNeverFollowed() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path target = elsewhere.resolve("made-by-the-agent");
        Files.createSymbolicLink(data.resolve("nonces.lock"), target);
        AuthException e = assertThrows(AuthException.class,
                () -> NonceStore.persistent(data, 10, clock).close());
        assertTrue(e.getMessage().contains("nonces.lock") || String.valueOf(e.getCause()).contains("symbolic link"),
                e + " / " + e.getCause());
        assertTrue(Files.notExists(target), "nothing made through the link");
        Path existing = Files.writeString(elsewhere.resolve("someone's.lock"), "x", StandardCharsets.US_ASCII);
        Files.delete(data.resolve("nonces.lock"));
        Files.createSymbolicLink(data.resolve("nonces.lock"), existing);
        assertThrows(AuthException.class,
                () -> NonceStore.persistent(data, 10, clock).close());
        assertArrayEquals("x".getBytes(StandardCharsets.US_ASCII), Files.readAllBytes(existing));
    }

    /**
     * The lock file made a hard link to the journal: its POSIX lock would be dropped the first time the agent closed
     * the journal (at the first segment change), and a second agent could then share it. Refused at the start.
     */
    @Test
    void aLockFileWithASecondNameRefusesTheStart() throws Exception {
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(0, store.size());
        }
        Path lock = dir.resolve("nonces.lock");
        Files.delete(lock);
        Files.createLink(lock, dir.resolve("nonces.journal"));
        AuthException e = assertThrows(AuthException.class, () -> NonceStore.persistent(dir, 10, clock).close());
        assertTrue(e.getMessage().contains("nonces.lock is the same file as " + dir.resolve("nonces.journal")),
                e.getMessage());
        Files.delete(lock);
        try (NonceStore store = NonceStore.persistent(dir, 10, clock)) {
            assertEquals(0, store.size(), "starts once the second name is gone");
        }
    }

    private static void mkfifo(Path at) throws Exception {
        Process p = new ProcessBuilder("mkfifo", at.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
    }

    /** @return what a start threw within a bound; if stuck, the FIFO is opened from the other side and it fails */
    private Throwable within(Path fifo) throws Exception {
        CompletableFuture<Throwable> r = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                NonceStore.persistent(dir, 10, clock).close();
                r.complete(null);
            } catch (Throwable t) {
                r.complete(t);
            }
        });
        try {
            return r.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException stuck) {
            FileChannel other = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                r.get(30, TimeUnit.SECONDS);
            } finally {
                other.close();
            }
            return fail("the start hung in open(2) on the FIFO " + fifo.getFileName() + " for 30 s at "
                    + Instant.now());
        }
    }
}
