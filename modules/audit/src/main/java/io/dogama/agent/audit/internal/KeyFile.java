package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.AuditException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
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
 * The audit key: {@value Chain#MAC_BYTES} random bytes in a regular file of mode 0600, separate from
 * the request secret and the registry key, made on first start. The bytes never appear in a message.
 */
public final class KeyFile {
    /** The mode the key file is created with, by the creating call itself (no window, whatever the umask). */
    public static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> FORBIDDEN = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private KeyFile() {
    }

    /**
     * @param file        the key file
     * @param mayCreate   true to create it when missing (the agent's first start)
     * @return the key bytes
     * @throws AuditException if it is missing (and may not be made), not a regular file, open to group
     *                        or others, not exactly {@value Chain#MAC_BYTES} bytes, or unreadable
     */
    public static byte[] load(Path file, boolean mayCreate) throws AuditException {
        PosixFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            if (!mayCreate) {
                throw new AuditException("key file " + file + " is missing", e);
            }
            return create(file);
        } catch (IOException | UnsupportedOperationException e) {
            throw new AuditException("key file " + file + " is unreadable", e);
        }
        if (!attrs.isRegularFile()) {
            throw new AuditException("key file " + file + " is not a regular file");
        }
        if (attrs.permissions().stream().anyMatch(FORBIDDEN::contains)) {
            throw new AuditException("key file " + file + " is accessible by group or others; it must have mode 0600");
        }
        if (attrs.size() != Chain.MAC_BYTES) {
            throw new AuditException("key file " + file + " must hold exactly " + Chain.MAC_BYTES + " bytes");
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocate(Chain.MAC_BYTES + 1);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // until full or end of file
            }
            if (buf.position() != Chain.MAC_BYTES) {
                throw new AuditException("key file " + file + " must hold exactly " + Chain.MAC_BYTES + " bytes");
            }
            byte[] key = new byte[Chain.MAC_BYTES];
            buf.flip().get(key);
            return key;
        } catch (IOException e) {
            throw new AuditException("key file " + file + " is unreadable", e);
        }
    }

    private static byte[] create(Path file) throws AuditException {
        byte[] key = new byte[Chain.MAC_BYTES];
        new SecureRandom().nextBytes(key);
        try (SeekableByteChannel ch = Files.newByteChannel(file,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC),
                PosixFilePermissions.asFileAttribute(MODE))) {
            ByteBuffer buf = ByteBuffer.wrap(key);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        } catch (FileAlreadyExistsException raced) {
            return load(file, false);
        } catch (IOException e) {
            throw new AuditException("key file " + file + " cannot be created", e);
        }
        return key;
    }
}
