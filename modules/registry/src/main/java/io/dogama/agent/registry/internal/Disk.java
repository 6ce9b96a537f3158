package io.dogama.agent.registry.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The registry file's writes, forces and truncations, in one place so that the tests can see their order and fail
 * any of them ({@link LogRegistry#disk}); the agent only ever uses {@link #REAL}.
 */
interface Disk {
    /** Writes all of {@code bytes} at {@code at}. */
    void write(FileChannel ch, ByteBuffer bytes, long at) throws IOException;

    /** Forces the file's content and size to the disk (fdatasync). */
    void force(FileChannel ch) throws IOException;

    /** Cuts the file to {@code size} bytes. */
    void truncate(FileChannel ch, long size) throws IOException;

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
    };
}
