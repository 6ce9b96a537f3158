package io.dogama.agent.core;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The one way the agent takes a store's files for itself (the registry's, the nonce journal's, the audit log's): an
 * exclusive lock on a lock file of its own, held for as long as it runs, so that two agents never write the same
 * files.
 *
 * <p>The name must be a regular file ({@link RegularFiles}: a FIFO would hang the open, a symbolic link would lock a
 * file elsewhere), created with mode 0600 ({@link KeyFiles#MODE}), and, once locked, <b>no other file of the store
 * may be the same file</b>. The lock is a POSIX record lock, which belongs to the process and the inode, and closing
 * any descriptor of that inode in the process drops it (fcntl(2): "the locks are released on close of any file
 * descriptor"; checked on this JDK). A lock file that is a hard link to a file the agent opens and closes, its key
 * or its registry, would stop excluding a second agent the first time that file is read, and nothing would say so.
 * So every entry of the folders the store reads is compared with the lock file (device and inode), and with every
 * other store's lock file found there (each name ends with {@link #SUFFIX}): the audit log, which opens and closes
 * the files of its folder, searches the data directory too, and so refuses the registry's lock linked into its
 * folder. A second name anywhere else, such as a hard-link backup of the data directory ({@code cp -al},
 * rsnapshot), is never opened by the agent and is fine. What could swap a name between the check and a later open
 * can write these folders, which the data directory check already requires to be the agent's alone.
 */
public final class LockFiles {
    /** How every lock file's name ends: how one store's search finds the others' lock files. */
    public static final String SUFFIX = ".lock";

    private LockFiles() {
    }

    /** Another process, or this one, holds the lock. */
    public static final class InUse extends IOException {
        private static final long serialVersionUID = 1L;

        InUse(Path file) {
            super(file + " is locked by another agent");
        }
    }

    /** The lock file is the same file as another file of the store (a hard link): its lock would be dropped. */
    public static final class Shared extends IOException {
        private static final long serialVersionUID = 1L;

        Shared(Path file, Path other) {
            super(file + " is the same file as " + other + " (a hard link), so its lock would not hold; remove "
                    + file.getFileName() + " (the agent makes it again)");
        }
    }

    /**
     * Opens, creating it if absent, and locks {@code file} exclusively.
     *
     * @param file    the lock file
     * @param folders the other folders whose files the store opens (the lock file's own folder is always searched)
     * @return the lock; its channel is the lock file's, open for writing, and closing it releases the lock
     * @throws RegularFiles.NotRegular if something other than a regular file has the name
     * @throws InUse                   if the lock is held already
     * @throws Shared                  if a file in those folders is the lock file, or another lock file there,
     *                                 under another name
     * @throws IOException             if it cannot be opened, locked or looked at
     */
    public static FileLock acquire(Path file, Path... folders) throws IOException {
        if (!file.getFileName().toString().endsWith(SUFFIX)) {
            throw new IllegalArgumentException("a lock file's name ends with " + SUFFIX + ": " + file);
        }
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
            // Checked with the lock held: a link made before it is seen; one made later needs the folder.
            requireSole(file, folders);
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

    private static void requireSole(Path file, Path... folders) throws IOException {
        // Each folder once, by its identity: one folder reached by two spellings (a link on the way to one of them)
        // would otherwise find a lock file's own name a second time, as another name of it.
        Map<Object, Path> searched = new LinkedHashMap<>();
        List<Path> asked = new ArrayList<>();
        asked.add(file.toAbsolutePath().getParent());
        for (Path f : folders) {
            asked.add(f.toAbsolutePath());
        }
        for (Path folder : asked) {
            Object key = folderKey(folder);
            if (key != null) {
                searched.putIfAbsent(key, folder);
            }
        }
        // This lock file, and every other store's lock file in these folders: the registry's and the nonce journal's
        // locks are taken before the audit log opens its folder, and it is the audit log that opens and closes files
        // there, so its search covers their lock files too (a hard link from registry.lock into the audit folder
        // would otherwise drop the registry's lock at the audit log's first read). A name is its folder's identity
        // and its own name.
        Map<Map.Entry<Object, Path>, Path> locks = new LinkedHashMap<>();
        Object ownFolder = folderKey(file.toAbsolutePath().getParent());
        locks.put(Map.entry(ownFolder, file.getFileName()), file);
        for (Map.Entry<Object, Path> folder : searched.entrySet()) {
            for (Path e : entries(folder.getValue())) {
                if (e.getFileName().toString().endsWith(SUFFIX)) {
                    locks.putIfAbsent(Map.entry(folder.getKey(), e.getFileName()), e);
                }
            }
        }
        for (Map.Entry<Map.Entry<Object, Path>, Path> lock : locks.entrySet()) {
            BasicFileAttributes la;
            try {
                la = Files.readAttributes(lock.getValue(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException gone) {
                continue;
            }
            if (!la.isRegularFile() || ((Number) Files.getAttribute(lock.getValue(), "unix:nlink",
                    LinkOption.NOFOLLOW_LINKS)).longValue() == 1) {
                continue; // its only name: nothing to search
            }
            Object key = Objects.requireNonNull(la.fileKey(), "no file key on this platform");
            for (Map.Entry<Object, Path> folder : searched.entrySet()) {
                for (Path e : entries(folder.getValue())) {
                    if (lock.getKey().equals(Map.entry(folder.getKey(), e.getFileName()))) {
                        continue; // the lock file itself
                    }
                    BasicFileAttributes a;
                    try {
                        a = Files.readAttributes(e, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    } catch (NoSuchFileException gone) {
                        continue;
                    }
                    if (key.equals(a.fileKey())) {
                        throw new Shared(lock.getValue(), e);
                    }
                }
            }
        }
    }

    /** @return the folder's identity (device and inode), following links to it; null if it is not made yet */
    private static Object folderKey(Path folder) throws IOException {
        try {
            return Objects.requireNonNull(Files.readAttributes(folder, BasicFileAttributes.class).fileKey(),
                    "no file key on this platform");
        } catch (NoSuchFileException absent) {
            return null;
        }
    }

    /** @return the folder's entries; none if it is not made yet */
    private static List<Path> entries(Path folder) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            entries.forEach(out::add);
        } catch (NoSuchFileException absent) {
            // a folder not made yet holds nothing
        }
        return out;
    }
}
