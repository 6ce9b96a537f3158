package io.dogama.agent.registry.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The real disk, with every operation recorded ({@code write@<position>+<bytes>}, {@code force},
 * {@code truncate@<size>}, {@code move <from>-><to>} by file name, {@code forceDirectory}) and handed to {@link
 * #before} first (with no channel for the last two), which may fail it, interrupt it or hold it.
 */
class RecordingDisk implements Disk {
    /** Something to do before an operation, given its name and how many operations came before it. */
    interface Hook {
        void before(String op, int index, FileChannel ch) throws IOException;
    }

    final List<String> ops = new ArrayList<>();
    volatile Hook before = (op, index, ch) -> {
    };

    /** Installs a new recording disk for the registry; {@link #close} puts the real one back. */
    static RecordingDisk install() {
        RecordingDisk d = new RecordingDisk();
        LogRegistry.disk = d;
        return d;
    }

    static void uninstall() {
        LogRegistry.disk = Disk.REAL;
    }

    private synchronized int record(String op) {
        ops.add(op);
        return ops.size() - 1;
    }

    synchronized List<String> ops() {
        return List.copyOf(ops);
    }

    synchronized void clear() {
        ops.clear();
    }

    @Override
    public void write(FileChannel ch, ByteBuffer bytes, long at) throws IOException {
        String op = "write@" + at + "+" + bytes.remaining();
        before.before(op, record(op), ch);
        Disk.REAL.write(ch, bytes, at);
    }

    @Override
    public void force(FileChannel ch) throws IOException {
        before.before("force", record("force"), ch);
        Disk.REAL.force(ch);
    }

    @Override
    public void truncate(FileChannel ch, long size) throws IOException {
        String op = "truncate@" + size;
        before.before(op, record(op), ch);
        Disk.REAL.truncate(ch, size);
    }

    @Override
    public void move(Path from, Path to) throws IOException {
        String op = "move " + from.getFileName() + "->" + to.getFileName();
        before.before(op, record(op), null);
        Disk.REAL.move(from, to);
    }

    @Override
    public void forceDirectory(Path dir) throws IOException {
        before.before("forceDirectory", record("forceDirectory"), null);
        Disk.REAL.forceDirectory(dir);
    }
}
