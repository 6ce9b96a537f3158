package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What someone who can write the data directory may leave in place of the registry's lock: a FIFO hung the start
 * in open(2) for ever (its thread is waited for without a bound), a link made the agent create, or hold a lock on,
 * a file anywhere (root's, in a host install: a package manager's lock, say). Each is refused at once.
 */
class PlantedRegistryEntriesTest {
    @TempDir
    Path dir;

    @Test
    void aFifoInPlaceOfTheLockRefusesTheOpenInsteadOfHangingIt() throws Exception {
        Registry.open(dir, 10).close();
        Path lock = dir.resolve("registry.lock");
        Files.delete(lock);
        Process p = new ProcessBuilder("mkfifo", lock.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
        CompletableFuture<Throwable> r = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Registry.open(dir, 10).close();
                r.complete(null);
            } catch (Throwable t) {
                r.complete(t);
            }
        });
        Throwable refused;
        try {
            refused = r.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException stuck) {
            FileChannel other = FileChannel.open(lock, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                r.get(30, TimeUnit.SECONDS);
            } finally {
                other.close();
            }
            refused = fail("the open hung in open(2) on the FIFO for 30 s");
        }
        assertInstanceOf(RegistryException.class, refused);
        Files.delete(lock);
        Registry.open(dir, 10).close();
    }

    @Test
    void aLinkInPlaceOfTheLockIsNeverFollowed() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path target = elsewhere.resolve("made-by-the-agent");
        Files.createSymbolicLink(data.resolve("registry.lock"), target);
        assertThrows(RegistryException.class, () -> Registry.open(data, 10).close());
        assertTrue(Files.notExists(target), "nothing made through the link");
        Path existing = Files.writeString(elsewhere.resolve("someone's.lock"), "x", StandardCharsets.US_ASCII);
        Files.delete(data.resolve("registry.lock"));
        Files.createSymbolicLink(data.resolve("registry.lock"), existing);
        assertThrows(RegistryException.class, () -> Registry.open(data, 10).close());
        assertArrayEquals("x".getBytes(StandardCharsets.US_ASCII), Files.readAllBytes(existing));
    }

    /**
     * The lock file made a hard link to the key: reading the key at the open closes a descriptor of the lock's
     * inode, which drops the POSIX lock, and a second agent could then open the same registry. Refused.
     */
    @Test
    void aLockFileWithASecondNameRefusesTheOpen() throws Exception {
        Registry.open(dir, 10).close();
        Path lock = dir.resolve("registry.lock");
        Files.delete(lock);
        Files.createLink(lock, dir.resolve("registry.key"));
        RegistryException e = assertThrows(RegistryException.class, () -> Registry.open(dir, 10).close());
        assertTrue(e.getMessage().contains("registry.lock is the same file as " + dir.resolve("registry.key")),
                e.getMessage());
        Files.delete(lock);
        Registry.open(dir, 10).close();
    }
}
