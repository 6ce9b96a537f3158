package io.dogama.agent.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The one way the agent takes a directory's files for itself (the registry's, the nonce journal's, the audit
 * log's): an exclusive lock on a lock file of its own, held for as long as it runs, so that two agents never write
 * the same files.
 *
 * <p>The name must be a regular file ({@link RegularFiles}: a FIFO would hang the open, a symbolic link would lock a
 * file elsewhere), created with mode 0600 ({@link KeyFiles#MODE}), and, once locked, <b>the file's only name</b>. The
 * lock is a POSIX record lock, which belongs to the process and the inode, and closing any descriptor of that inode
 * in the process drops it (fcntl(2), "the locks are released on close of any file descriptor"). A lock file that
 * is a hard link to a file the agent opens and closes, its key or its registry, would stop excluding a second agent
 * the first time that file is read, and nothing would say so. A link count of 1 rules that out. What could swap the
 * name between the open and the check can write the directory, which the data directory check already requires to
 * be the agent's alone.
 */
public final class LockFiles {
    private LockFiles() {
    }

    /** Another process, or this one, holds the lock. */
    public static final class InUse extends IOException {
        private static final long serialVersionUID = 1L;

        InUse(Path file) {
            super(file + " is locked by another agent");
        }
    }

    /** The lock file has another name as well (a hard link): its lock could be dropped without a word. */
    public static final class NotSole extends IOException {
        private static final long serialVersionUID = 1L;

        NotSole(Path file, long links) {
            super(file + " has " + links + " names (a hard link), so its lock would not hold; remove the other names"
                    + " or the file");
        }
    }

    /**
     * Opens, creating it if absent, and locks {@code file} exclusively.
     *
     * @param file the lock file
     * @return the lock; its channel is the lock file's, open for writing, and closing it releases the lock
     * @throws RegularFiles.NotRegular if something other than a regular file has the name
     * @throws InUse                   if the lock is held already
     * @throws NotSole                 if the file has more than one name
     * @throws IOException             if it cannot be opened, locked or looked at
     */
    public static FileLock acquire(Path file) throws IOException {
        RegularFiles.requireIfPresent(file);
        FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(KeyFiles.MODE));
        try {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this process already
            }
            if (lock == null) {
                throw new InUse(file);
            }
            // Checked with the lock held: a link made before it is seen; one made later needs the directory.
            long links = ((Number) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).longValue();
            if (links != 1) {
                throw new NotSole(file, links);
            }
            return lock;
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
