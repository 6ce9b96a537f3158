package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one lock the agent's file stores take: exclusive, of a regular file of mode 0600 that has no other name. */
class LockFilesTest {
    @TempDir
    Path dir;

    @Test
    void aNewLockFileIsMadeWithMode0600AndHeldUntilReleased() throws Exception {
        Path file = dir.resolve("x.lock");
        FileLock lock = LockFiles.acquire(file);
        try (FileChannel ch = lock.channel()) {
            assertTrue(lock.isValid() && ch.isOpen());
            assertFalse(lock.isShared());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertThrows(LockFiles.InUse.class, () -> LockFiles.acquire(file));
        }
        assertFalse(lock.isValid(), "closing the channel releases the lock");
        try (FileChannel again = LockFiles.acquire(file).channel()) {
            assertTrue(again.isOpen(), "a released lock can be taken again");
        }
    }

    /**
     * A lock file that is a hard link to a file the agent reads (here its key) would lose its POSIX lock the first
     * time that file is closed: refused, and nothing is left held, so that removing the link is all it takes.
     */
    @Test
    void aLockFileThatIsAnotherFileOfTheStoreIsRefusedAndLeftUnlocked() throws Exception {
        Path key = Files.writeString(dir.resolve("x.key"), "secret", StandardCharsets.US_ASCII);
        Path file = dir.resolve("x.lock");
        Files.createLink(file, key);
        LockFiles.Shared refused = assertThrows(LockFiles.Shared.class, () -> LockFiles.acquire(file));
        assertTrue(refused.getMessage().contains(file + " is the same file as " + key), refused.getMessage());
        assertFalse(refused.getMessage().contains("secret"), "never the key's bytes");
        assertArrayEquals("secret".getBytes(StandardCharsets.US_ASCII), Files.readAllBytes(key), "key untouched");

        Files.delete(file);
        try (FileChannel ch = LockFiles.acquire(file).channel()) {
            assertTrue(ch.isOpen(), "the refused attempt left no lock behind");
        }
        // The other way round: the lock file made first, a store file made as a second name of it afterwards.
        Files.delete(key);
        Files.createLink(key, file);
        assertThrows(LockFiles.Shared.class, () -> LockFiles.acquire(file));
    }

    /** A store whose files lie in two folders (the audit log's, and its key's): both are searched. */
    @Test
    void aSecondNameInAnotherFolderOfTheStoreIsRefused() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("audit"));
        Path file = logs.resolve("x.lock");
        Path key = dir.resolve("x.key");
        Files.writeString(key, "k", StandardCharsets.US_ASCII);
        Files.createLink(file, key);
        assertThrows(LockFiles.Shared.class, () -> LockFiles.acquire(file, dir));
    }

    /**
     * Another store's lock file with a second name in this store's folder: the registry's lock (taken first, in the
     * data directory) linked into the audit folder would be dropped when the audit log, which opens and closes the
     * files of its folder, first read that name. The audit log's lock, whose search covers both folders, refuses.
     */
    @Test
    void anotherStoresLockFileWithASecondNameInThisStoresFolderIsRefused() throws Exception {
        Path audit = Files.createDirectory(dir.resolve("audit"));
        FileLock registry = LockFiles.acquire(dir.resolve("registry.lock"), dir);
        try (FileChannel ch = registry.channel()) {
            Files.createLink(audit.resolve("audit-000001.jsonl"), dir.resolve("registry.lock"));
            LockFiles.Shared refused = assertThrows(LockFiles.Shared.class,
                    () -> LockFiles.acquire(audit.resolve("audit.lock"), dir));
            assertTrue(refused.getMessage().contains("registry.lock is the same file as"), refused.getMessage());
            assertTrue(registry.isValid() && ch.isOpen(), "the other store's lock is still held");
        }
        assertThrows(IllegalArgumentException.class, () -> LockFiles.acquire(dir.resolve("registry.lck")));
    }

    /**
     * One folder searched under two spellings (the audit folder given as the data directory through a link on the
     * way), with a hard-link backup elsewhere: the lock file's own name, met again under the other spelling, is not
     * another name of it (a helper's review of the wider search).
     */
    @Test
    void oneFolderUnderTwoSpellingsIsSearchedOnce() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Path alias = Files.createSymbolicLink(dir.resolve("alias"), dir);
        Path backup = Files.createDirectory(dir.resolve("backup"));
        LockFiles.acquire(data.resolve("registry.lock")).channel().close();
        Files.createLink(backup.resolve("registry.lock"), data.resolve("registry.lock"));
        try (FileChannel ch = LockFiles.acquire(data.resolve("registry.lock"), alias.resolve("data")).channel()) {
            assertTrue(ch.isOpen());
        }
    }

    /**
     * A second name outside the store's folders, as a hard-link backup of the data directory ({@code cp -al},
     * rsnapshot) makes one for every file, is never opened by the agent: the lock holds, and the start goes on.
     */
    @Test
    void aSecondNameInABackupElsewhereIsFine() throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Path backup = Files.createDirectory(dir.resolve("backup"));
        Path file = data.resolve("x.lock");
        LockFiles.acquire(file).channel().close();
        Files.writeString(data.resolve("x.key"), "k", StandardCharsets.US_ASCII);
        Files.createLink(backup.resolve("x.lock"), file);
        Files.createLink(backup.resolve("x.key"), data.resolve("x.key"));
        FileLock lock = LockFiles.acquire(file, data);
        try (FileChannel ch = lock.channel()) {
            assertTrue(lock.isValid() && ch.isOpen());
            assertThrows(LockFiles.InUse.class, () -> LockFiles.acquire(file));
        }
    }

    @Test
    void aSymbolicLinkInPlaceOfTheLockFileIsNeverFollowed() throws Exception {
        Path target = dir.resolve("made-through-the-link");
        Files.createSymbolicLink(dir.resolve("x.lock"), target);
        assertThrows(RegularFiles.NotRegular.class, () -> LockFiles.acquire(dir.resolve("x.lock")));
        assertFalse(Files.exists(target, LinkOption.NOFOLLOW_LINKS), "nothing made through the link");
    }

    @Test
    void aFifoInPlaceOfTheLockFileIsRefusedWithoutOpeningIt() throws Exception {
        Path file = dir.resolve("x.lock");
        Process p = new ProcessBuilder("mkfifo", file.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
        // Opened to write, a FIFO blocks until a reader comes: run apart, with a bound.
        CompletableFuture<Throwable> r = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                LockFiles.acquire(file).channel().close();
                r.complete(null);
            } catch (Throwable t) {
                r.complete(t);
            }
        });
        assertInstanceOf(RegularFiles.NotRegular.class, r.get(30, TimeUnit.SECONDS));
    }
}
