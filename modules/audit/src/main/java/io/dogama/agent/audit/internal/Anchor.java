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
import java.util.zip.CRC32C;

/**
 * The last line of the log the agent knows to be on disk, kept beside the audit key in the data directory
 * ({@code audit.head}, mode 0600: two fixed-size slots, {@code <seq, 19 digits> <mac hex> <crc32c hex>\n}, the
 * newer valid one counting; an earlier agent's single line {@code <seq> <mac hex>} is still read). The chain alone cannot tell a log cut
 * short at a line boundary, emptied, or swapped for another chain under the same key (an archive of it)
 * from the real one: each still verifies. Whoever can write the log's storage but not the data directory
 * (the README's advice puts them on different file systems) cannot move this line, so the start and
 * {@code audit verify} of the configured log find what was taken away. Written only after the lines it names
 * were synced, so a crash or a power cut leaves it at or behind the log, never ahead of it.
 */
public final class Anchor {
    /** The file's name, in the folder of the audit key. */
    public static final String FILE_NAME = "audit.head";
    /** An earlier agent's form: one line, replaced by a rename at every write. */
    private static final Pattern LINE = Pattern.compile("^([1-9][0-9]{0,17}) ([0-9a-f]{64})\n$");
    private static final Pattern SLOT = Pattern.compile("^(0[0-9]{18}) ([0-9a-f]{64}) ([0-9a-f]{8})\n$");
    private static final int SLOT_BYTES = 19 + 1 + 64 + 1 + 8 + 1;
    /**
     * Where the second slot begins: a page apart, so that a device that tears a whole sector or page in a power cut
     * can spoil only the slot being written (the file is written whole at the start, zeros between the slots).
     */
    private static final int SLOT_STRIDE = 4096;
    private static final int MAX_BYTES = 2 * SLOT_STRIDE;

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
        if (bytes.length == MAX_BYTES) {
            Optional<Optional<Head>> slots = slots(bytes);
            if (slots.isPresent()) {
                return slots.get();
            }
        } else if (bytes.length <= MAX_BYTES) {
            Matcher m = LINE.matcher(new String(bytes, StandardCharsets.US_ASCII));
            if (m.matches()) {
                return Optional.of(new Head(Long.parseLong(m.group(1)), HexFormat.of().parseHex(m.group(2))));
            }
        }
        throw new AuditException(file + " is not the agent's record of its last audit line; restore it, or"
                + " remove it to accept the log as it is");
    }

    /**
     * @return empty if neither slot is whole (a file the agent did not write: a write tears at most one); else the
     *         newer slot's line, or none if it names none yet (seq 0)
     */
    private static Optional<Optional<Head>> slots(byte[] bytes) {
        long best = -1;
        byte[] mac = null;
        for (int i = 0; i < 2; i++) {
            String slot = new String(bytes, i * SLOT_STRIDE, SLOT_BYTES, StandardCharsets.US_ASCII);
            Matcher m = SLOT.matcher(slot);
            if (!m.matches() || !m.group(3).equals(crc(slot.substring(0, 19 + 1 + 64)))) {
                continue; // torn by a crash in its write: the other one stands
            }
            long seq = Long.parseLong(m.group(1));
            if (seq > best) {
                best = seq;
                mac = HexFormat.of().parseHex(m.group(2));
            }
        }
        if (best < 0) {
            return Optional.empty();
        }
        return Optional.of(best == 0 ? Optional.empty() : Optional.of(new Head(best, mac)));
    }

    private static String crc(String text) {
        CRC32C c = new CRC32C();
        c.update(text.getBytes(StandardCharsets.US_ASCII));
        return String.format("%08x", c.getValue());
    }

    private static byte[] slot(long seq, byte[] mac) {
        String text = String.format("%019d %s", seq, HexFormat.of().formatHex(mac));
        return (text + " " + crc(text) + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The anchor file, open for its whole life: each line is written in place, into the slot that does not hold the
     * newer one, and forced. No write after the open needs a new inode or block, so a file system that has run out
     * of either (which a container can cause, below an allowed root on the same file system) cannot freeze the
     * anchor behind the log; a write torn by a crash leaves the other slot.
     */
    static final class Slots implements AutoCloseable {
        private final FileChannel ch;
        private int next;

        private Slots(FileChannel ch) {
            this.ch = ch;
        }

        /**
         * Makes the file anew in this form (a temporary one written, forced and renamed over it, the folder
         * forced), both slots naming {@code current}, and opens it.
         *
         * @param file    the anchor file
         * @param current the line it names now, none for a log without one
         * @return the open file
         * @throws IOException if it cannot be made or opened
         */
        static Slots open(Path file, Optional<Head> current) throws IOException {
            byte[] one = current.map(h -> slot(h.seq(), h.mac)).orElseGet(() -> slot(0, new byte[Chain.MAC_BYTES]));
            byte[] both = new byte[MAX_BYTES];
            System.arraycopy(one, 0, both, 0, SLOT_BYTES);
            System.arraycopy(one, 0, both, SLOT_STRIDE, SLOT_BYTES);
            // The channel the file was written through is the one kept: nothing is opened by name after the rename.
            FileChannel ch = replace(file, both);
            return new Slots(ch);
        }

        /**
         * @param head a line already synced to the log
         * @throws IOException if the write or its force fails (the other slot then still names an earlier line:
         *                     behind the log, safe)
         */
        void write(Head head) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(slot(head.seq(), head.mac));
            long at = (long) next * SLOT_STRIDE;
            while (buf.hasRemaining()) {
                at += ch.write(buf, at);
            }
            ch.force(false);
            next = 1 - next;
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    /**
     * Replaces the file: a temporary one beside it written and forced, renamed over it, the folder forced.
     *
     * @param file    the anchor file
     * @param content its new content
     * @return the channel it was written through, open for writing (the caller closes it)
     * @throws IOException if any step fails (the old anchor then stays: safe)
     */
    private static FileChannel replace(Path file, byte[] content) throws IOException {
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        Files.deleteIfExists(tmp); // a link or anything else left there is never written through
        FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(KeyFiles.MODE));
        try {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Fsync.directory(file.getParent());
            return ch;
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
