package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.AuditException;
import io.dogama.agent.core.KeyFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The last line of the log the agent knows to be on disk, kept beside the audit key in the data directory
 * ({@code audit.head}: one line, {@code <seq> <mac hex>}, mode 0600). The chain alone cannot tell a log cut
 * short at a line boundary, emptied, or swapped for another chain under the same key (an archive of it)
 * from the real one: each still verifies. Whoever can write the log's storage but not the data directory
 * (the README's advice puts them on different file systems) cannot move this line, so the start and
 * {@code audit verify} of the configured log find what was taken away. Written only after the lines it names
 * were synced, so a crash or a power cut leaves it at or behind the log, never ahead of it.
 */
public final class Anchor {
    /** The file's name, in the folder of the audit key. */
    public static final String FILE_NAME = "audit.head";
    private static final Pattern LINE = Pattern.compile("^([1-9][0-9]{0,17}) ([0-9a-f]{64})\n$");
    private static final int MAX_BYTES = 128;

    /**
     * A line of the log: its sequence number and its MAC.
     *
     * @param seq 1 or more
     * @param mac the line's 32-byte MAC
     */
    public record Head(long seq, byte[] mac) {
        /** Copies. */
        public Head {
            if (seq < 1 || mac.length != Chain.MAC_BYTES) {
                throw new IllegalArgumentException("audit: not a line's sequence number and MAC");
            }
            mac = mac.clone();
        }

        @Override
        public byte[] mac() {
            return mac.clone();
        }

        boolean named(long lineSeq, byte[] lineMac) {
            return lineSeq == seq && MessageDigest.isEqual(lineMac, mac);
        }
    }

    private Anchor() {
    }

    /**
     * @param file the anchor file
     * @return its line; empty if there is none (a log made before the agent kept one, or a new one)
     * @throws AuditException if it is not a regular file holding one such line
     */
    public static Optional<Head> read(Path file) throws AuditException {
        byte[] bytes;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.size() > MAX_BYTES) {
                throw new AuditException(file + " is not the agent's record of its last audit line; restore it, or"
                        + " remove it to accept the log as it is");
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                bytes = in.readNBytes(MAX_BYTES + 1); // one that grew past the bound meanwhile fails below
            }
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        } catch (IOException e) {
            throw new AuditException(file + " cannot be read", e);
        }
        Matcher m = LINE.matcher(new String(bytes, StandardCharsets.US_ASCII));
        if (bytes.length > MAX_BYTES || !m.matches()) {
            throw new AuditException(file + " is not the agent's record of its last audit line; restore it, or"
                    + " remove it to accept the log as it is");
        }
        return Optional.of(new Head(Long.parseLong(m.group(1)), HexFormat.of().parseHex(m.group(2))));
    }

    /**
     * Replaces the file: a temporary one beside it written and forced, renamed over it, the folder forced.
     *
     * @param file the anchor file
     * @param head a line already synced to the log
     * @throws IOException if any step fails (the old anchor then stays, behind the log: safe)
     */
    static void write(Path file, Head head) throws IOException {
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        byte[] line = (head.seq() + " " + HexFormat.of().formatHex(head.mac) + "\n").getBytes(StandardCharsets.US_ASCII);
        Files.deleteIfExists(tmp); // a link or anything else left there is never written through
        try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(KeyFiles.MODE))) {
            ByteBuffer buf = ByteBuffer.wrap(line);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Fsync.directory(file.getParent());
    }
}
