package io.dogama.agent.audit.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file channel that fails as a disk does: the write numbered {@code failWrite} (from 1) writes half of what it is
 * given and then throws, and the truncate right after it throws too (EIO from a file system gone bad for a moment).
 * Everything else, and every later call, goes to the real channel; a force fails once when the test asks for it.
 */
final class FaultyChannel extends FileChannel {
    private final FileChannel real;
    private final AtomicInteger writes;
    private final int failWrite;
    private boolean failNextTruncate;
    /** Set by a test: the next force throws (EIO from fdatasync) and clears it. */
    private final AtomicBoolean failForce;

    FaultyChannel(FileChannel real, AtomicInteger writes, int failWrite) {
        this(real, writes, failWrite, new AtomicBoolean());
    }

    FaultyChannel(FileChannel real, AtomicInteger writes, int failWrite, AtomicBoolean failForce) {
        this.real = real;
        this.writes = writes;
        this.failWrite = failWrite;
        this.failForce = failForce;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (writes.incrementAndGet() == failWrite) {
            ByteBuffer half = src.duplicate();
            half.limit(src.position() + src.remaining() / 2);
            int n = real.write(half);
            src.position(src.position() + n);
            failNextTruncate = true;
            throw new IOException("test: EIO in the middle of a write");
        }
        return real.write(src);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (failNextTruncate) {
            failNextTruncate = false;
            throw new IOException("test: EIO on the truncate after it");
        }
        real.truncate(size);
        return this;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return real.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public void force(boolean metaData) throws IOException {
        if (failForce.getAndSet(false)) {
            throw new IOException("test: EIO from fdatasync");
        }
        real.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return real.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return real.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
