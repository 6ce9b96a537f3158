package io.dogama.agent.registry.internal;

import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
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
 * The agent-local registry key: {@value RecordMac#KEY_BYTES} random bytes in a regular file of mode 0600
 * (0400 also accepted), never a symlink. The key bytes are never logged nor put in a message.
 */
final class KeyFile {
    private static final Set<PosixFilePermission> FORBIDDEN = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private KeyFile() {
    }

    /**
     * @throws RegistryException if the file is missing, not a regular file, accessible by group or
     *                           others, not exactly {@value RecordMac#KEY_BYTES} bytes, or unreadable
     */
    static byte[] load(Path file) throws RegistryException {
        PosixFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new RegistryException("key file " + file.getFileName() + " is missing", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new RegistryException("key file " + file.getFileName() + " is unreadable", e);
        }
        if (!attrs.isRegularFile()) {
            throw new RegistryException("key file " + file.getFileName() + " is not a regular file");
        }
        if (attrs.permissions().stream().anyMatch(FORBIDDEN::contains)) {
            throw new RegistryException("key file " + file.getFileName()
                    + " is accessible by group or others; it must have mode 0600");
        }
        if (attrs.size() != RecordMac.KEY_BYTES) {
            throw new RegistryException("key file " + file.getFileName() + " must hold exactly "
                    + RecordMac.KEY_BYTES + " bytes");
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate(RecordMac.KEY_BYTES + 1);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // read until full or end of file
            }
            if (buf.position() != RecordMac.KEY_BYTES) {
                throw new RegistryException("key file " + file.getFileName() + " must hold exactly "
                        + RecordMac.KEY_BYTES + " bytes");
            }
            byte[] key = new byte[RecordMac.KEY_BYTES];
            buf.flip().get(key);
            return key;
        } catch (AccessDeniedException e) {
            throw new RegistryException("key file " + file.getFileName() + " is unreadable (permission denied)", e);
        } catch (IOException e) {
            throw new RegistryException("key file " + file.getFileName() + " is unreadable", e);
        }
    }

    /**
     * Generates a new key into {@code file} atomically (temporary file of mode 0600, fsync, rename, fsync
     * of the directory), so that a crash leaves either no key or a complete one.
     *
     * @throws RegistryException if the key cannot be written, or a key file appeared meanwhile
     */
    static byte[] create(Path file) throws RegistryException {
        byte[] key = new byte[RecordMac.KEY_BYTES];
        new SecureRandom().nextBytes(key);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.deleteIfExists(tmp);
            try (FileChannel ch = FileChannel.open(tmp, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(
                            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)))) {
                ByteBuffer buf = ByteBuffer.wrap(key);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            // A hard link publishes atomically and, unlike rename, fails instead of replacing an existing key.
            Files.createLink(file, tmp);
            Files.delete(tmp);
            Fsync.directory(file.getParent());
            return key;
        } catch (IOException e) {
            throw new RegistryException("cannot create key file " + file.getFileName(), e);
        }
    }
}
