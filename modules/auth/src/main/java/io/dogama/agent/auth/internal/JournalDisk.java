package io.dogama.agent.auth.internal;

import io.dogama.agent.core.KeyFiles;
import io.dogama.agent.core.RegularFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The file operations the nonce journal performs once it is open, in one place: the production
 * implementation is {@link #REAL}; tests put a disk under the journal that loses every byte that was
 * not forced when it "loses power". Every file created here is mode 0600 from its creation on
 * (a permission attribute of the {@code open}, never a {@code chmod} afterwards).
 */
interface JournalDisk {
    /** The real file system. */
    JournalDisk REAL = new Real();

    /** Owner read and write only, given at creation. */
    FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(KeyFiles.MODE);

    /**
     * A write that left nothing behind: the file is as it was before it (e.g. the file system was
     * full, and what part of the bytes got in was cut off again). The journal can go on.
     */
    final class NotWritten extends IOException {
        private static final long serialVersionUID = 1L;

        NotWritten(IOException cause) {
            super("nothing was written", cause);
        }
    }

    /** An open file that is appended to. */
    interface Appender extends AutoCloseable {
        /**
         * Writes every remaining byte at the end of the file.
         *
         * @param bytes the bytes
         * @throws NotWritten if it failed and the file is as it was before the call
         * @throws IOException if the write failed otherwise; how much of it reached the file is unknown
         */
        void write(ByteBuffer bytes) throws IOException;

        /**
         * Forces the file's content and size to the device ({@code fdatasync}).
         *
         * @throws IOException if that failed; nothing written since the last successful force is known to be durable
         */
        void force() throws IOException;

        @Override
        void close() throws IOException;
    }

    /**
     * @param file an existing file
     * @return it, open for appending
     * @throws IOException if it cannot be opened
     */
    Appender append(Path file) throws IOException;

    /** Where {@link Content} writes. */
    @FunctionalInterface
    interface Output {
        /**
         * @param bytes written whole
         * @throws NotWritten if they could not be written
         */
        void write(ByteBuffer bytes) throws IOException;
    }

    /** What a new file holds, written piece by piece, so that it is never on the heap at once. */
    @FunctionalInterface
    interface Content {
        /**
         * @param out where to write it
         * @throws IOException if a write failed ({@link NotWritten}) or the content could not be produced
         */
        void writeTo(Output out) throws IOException;
    }

    /**
     * Creates a new file (it must not exist) with this content and forces it to the device; its
     * directory entry is durable only after {@link #forceDirectory}. If the content fails, the file is
     * removed again.
     *
     * @param file    the file
     * @param content its content
     * @throws IOException if it exists or cannot be written ({@link NotWritten}) or forced, or the content failed
     */
    void createForced(Path file, Content content) throws IOException;

    /**
     * Renames atomically, replacing {@code to}; durable after {@link #forceDirectory}.
     *
     * @param from the file
     * @param to   its new name
     * @throws IOException if the rename failed
     */
    void replace(Path from, Path to) throws IOException;

    /**
     * Forces a directory, making the creations, renames and deletions in it durable.
     *
     * @param dir the directory
     * @throws IOException if that failed
     */
    void forceDirectory(Path dir) throws IOException;

    /**
     * @param file a file, possibly absent
     * @throws IOException if it exists and cannot be deleted
     */
    void delete(Path file) throws IOException;

    /** Delegates to {@link FileChannel} and {@link Files}. */
    final class Real implements JournalDisk {
        private Real() {
        }

        @Override
        public Appender append(Path file) throws IOException {
            RegularFiles.requireIfPresent(file); // opened to write, a FIFO would hang
            FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND,
                    LinkOption.NOFOLLOW_LINKS);
            return new Appender() {
                @Override
                public void write(ByteBuffer bytes) throws IOException {
                    long before = channel.size();
                    try {
                        while (bytes.hasRemaining()) {
                            channel.write(bytes);
                        }
                    } catch (IOException e) {
                        try {
                            // a full file system takes part of a write: cut it back to the lines before
                            channel.truncate(before);
                        } catch (IOException notEvenThat) {
                            e.addSuppressed(notEvenThat);
                            throw e;
                        }
                        throw new NotWritten(e);
                    }
                }

                @Override
                public void force() throws IOException {
                    channel.force(false);
                }

                @Override
                public void close() throws IOException {
                    channel.close();
                }
            };
        }

        @Override
        public void createForced(Path file, Content content) throws IOException {
            try (FileChannel out = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), OWNER_ONLY)) {
                try {
                    content.writeTo(buffer -> {
                        try {
                            while (buffer.hasRemaining()) {
                                out.write(buffer);
                            }
                        } catch (IOException e) {
                            throw new NotWritten(e);
                        }
                    });
                } catch (IOException | RuntimeException e) {
                    // a full file system or a failed content: the new file is removed again and nothing else changed
                    Files.deleteIfExists(file);
                    throw e;
                }
                out.force(true);
            }
        }

        @Override
        public void replace(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        @Override
        public void forceDirectory(Path dir) throws IOException {
            try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
                directory.force(true);
            }
        }

        @Override
        public void delete(Path file) throws IOException {
            Files.deleteIfExists(file);
        }
    }

    /**
     * @param dir    a directory
     * @param prefix the start of the names wanted
     * @return the files whose name is {@code prefix} followed by at least one character, the first a digit (as the
     *         glob {@code prefix[0-9]*}, without compiling one into a regular expression at every start), in no
     *         particular order
     * @throws IOException if the directory cannot be listed
     */
    static List<Path> listNumbered(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> {
                String name = p.getFileName().toString();
                return name.length() > prefix.length() && name.startsWith(prefix)
                        && name.charAt(prefix.length()) >= '0' && name.charAt(prefix.length()) <= '9';
            }).toList();
        }
    }
}
