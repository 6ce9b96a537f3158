package io.dogama.agent.registry.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The registry file's writes, forces, truncations and renames, and the forces of its folder, in one place so that the
 * tests can see their order and fail any of them ({@link LogRegistry#disk}); the agent only ever uses {@link #REAL}.
 */
interface Disk {
    /** Writes all of {@code bytes} at {@code at}. */
    void write(FileChannel ch, ByteBuffer bytes, long at) throws IOException;

    /** Forces the file's content and size to the disk (fdatasync). */
    void force(FileChannel ch) throws IOException;

    /** Cuts the file to {@code size} bytes. */
    void truncate(FileChannel ch, long size) throws IOException;

    /** Renames {@code from} to {@code to} in one step (rename(2): a file at {@code to} is replaced). */
    void move(Path from, Path to) throws IOException;

    /** Makes the renames, creations and deletions in {@code dir} durable. */
    void forceDirectory(Path dir) throws IOException;

    /** The file system itself. */
    Disk REAL = new Disk() {
        @Override
        public void write(FileChannel ch, ByteBuffer bytes, long at) throws IOException {
            int n = bytes.remaining();
            while (bytes.hasRemaining()) {
                ch.write(bytes, at + n - bytes.remaining());
            }
        }

        @Override
        public void force(FileChannel ch) throws IOException {
            ch.force(false);
        }

        @Override
        public void truncate(FileChannel ch, long size) throws IOException {
            ch.truncate(size);
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        @Override
        public void forceDirectory(Path dir) throws IOException {
            Fsync.directory(dir);
        }
    };
}
