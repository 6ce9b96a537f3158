package io.dogama.agent.core;

import java.io.IOException;
import java.io.Serial;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Set;

/**
 * The agent's local keys (the registry's MAC key, the audit key): random bytes in a regular file of mode 0600,
 * never a link, made on first start. One definition for both: how one is read, refusing anything else, and how
 * one is made, so that a crash or a full disk leaves either no key file or a complete one (a key file cut short
 * would refuse every later start). The bytes never appear in a message.
 */
public final class KeyFiles {
    /**
     * The mode a key file is created with, by the creating call itself (no window, whatever the umask); the one
     * definition of it for every file the agent makes in its data directory (SPEC 9: lock files, the registry, the
     * nonce journal, the audit log and its anchor use it too).
     */
    public static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> FORBIDDEN = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    /** Test seam: runs when the new key is forced under its temporary name, before it is published. */
    static volatile Runnable beforePublish = () -> {
    };

    private KeyFiles() {
    }

    /** Why a key file was refused: "key file NAME REASON", never the bytes. */
    public static final class KeyFileException extends IOException {
        @Serial
        private static final long serialVersionUID = 1L;

        private final boolean missing;

        KeyFileException(Path file, String reason, boolean missing, Throwable cause) {
            super("key file " + file + " " + reason, cause);
            this.missing = missing;
        }

        /** @return true if there is no key file */
        public boolean missing() {
            return missing;
        }
    }

    /**
     * @param file   the key file
     * @param length the key's length in bytes
     * @return the key
     * @throws KeyFileException if it is missing, not a regular file (a link included), open to group or others,
     *                          not exactly {@code length} bytes, or unreadable
     */
    public static byte[] load(Path file, int length) throws KeyFileException {
        PosixFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new KeyFileException(file, "is missing", true, e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new KeyFileException(file, "is unreadable", false, e);
        }
        if (!attrs.isRegularFile()) {
            throw new KeyFileException(file, "is not a regular file", false, null);
        }
        if (attrs.permissions().stream().anyMatch(FORBIDDEN::contains)) {
            throw new KeyFileException(file, "is accessible by group or others; it must have mode 0600", false, null);
        }
        if (attrs.size() != length) {
            throw new KeyFileException(file, "must hold exactly " + length + " bytes", false, null);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate(length + 1);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // until full or end of file
            }
            if (buf.position() != length) {
                throw new KeyFileException(file, "must hold exactly " + length + " bytes", false, null);
            }
            byte[] key = new byte[length];
            buf.flip().get(key);
            return key;
        } catch (KeyFileException e) {
            throw e;
        } catch (IOException e) {
            throw new KeyFileException(file, "is unreadable", false, e);
        }
    }

    /**
     * Makes a new key: written under a temporary name (mode 0600), forced, then published by a hard link, which,
     * unlike a rename, fails instead of replacing a key that appeared meanwhile; the folder is forced last.
     *
     * @param file   the key file, which must not exist
     * @param length the key's length in bytes
     * @return the key
     * @throws KeyFileException if it cannot be written, or a key file exists
     */
    public static byte[] create(Path file, int length) throws KeyFileException {
        return publish(file, generate(length));
    }

    /**
     * @param length the key's length in bytes
     * @return a new random key, for {@link #publish} once the caller has used it
     */
    public static byte[] generate(int length) {
        byte[] key = new byte[length];
        new SecureRandom().nextBytes(key);
        return key;
    }

    /**
     * Publishes {@code key}, made by the caller (who has used it before it is published, e.g. to sign a file that
     * must exist once the key does), as {@link #create} publishes a key it made.
     *
     * @param file the key file, which must not exist
     * @param key  the key
     * @return the key as published
     * @throws KeyFileException if it cannot be written, or a key file exists
     */
    public static byte[] publish(Path file, byte[] key) throws KeyFileException {
        int length = key.length;
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(tmp); // what a crash during an earlier creation left: never published, never used
            try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(MODE))) {
                ByteBuffer buf = ByteBuffer.wrap(key);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            beforePublish.run();
            Files.createLink(file, tmp);
            Files.delete(tmp);
            try (FileChannel dir = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            }
            // What was published, not what this process wrote: another process making the same key at the same
            // moment shares the temporary name, and its bytes may be the ones linked.
            return load(file, length);
        } catch (FileAlreadyExistsException e) {
            throw new KeyFileException(file, "appeared while a new one was made", false, e);
        } catch (IOException e) {
            throw new KeyFileException(file, "cannot be created", false, e);
        }
    }
}
