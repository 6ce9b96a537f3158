package io.dogama.agent.auth.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link JournalDisk} over the real files that can lose power: {@link #crash} truncates every file to
 * the length it had at its last successful force, removes every name created or renamed since the last
 * directory force, and fails every later operation. So after a crash exactly what was forced is left,
 * which is all a power loss guarantees. A hook runs before each force of appended lines (outside the
 * disk's own lock, so a test can hold a force while it crashes the disk).
 */
final class LossyDisk implements JournalDisk {
    /** Runs before the n-th force of appended lines (1-based); may block or throw. */
    interface ForceHook {
        void beforeForce(int n) throws IOException;
    }

    private final Map<Path, Long> forcedLength = new HashMap<>();
    private final Set<Path> namesNotDurable = new HashSet<>();
    private final AtomicInteger forces = new AtomicInteger();
    private volatile ForceHook hook = n -> { };
    private boolean dead;

    void hook(ForceHook forceHook) {
        this.hook = forceHook;
    }

    /** @return how many forces of appended lines completed */
    int forces() {
        return forces.get();
    }

    /** Power loss: everything not forced is gone, and the disk answers nothing any more. */
    synchronized void crash() throws IOException {
        dead = true;
        for (Path p : namesNotDurable) {
            Files.deleteIfExists(p);
            forcedLength.remove(p);
        }
        for (Map.Entry<Path, Long> e : forcedLength.entrySet()) {
            if (Files.exists(e.getKey())) {
                try (FileChannel c = FileChannel.open(e.getKey(), StandardOpenOption.WRITE)) {
                    c.truncate(e.getValue());
                }
            }
        }
    }

    private void alive() throws IOException {
        if (dead) {
            throw new IOException("test disk: power lost");
        }
    }

    @Override
    public synchronized Appender append(Path file) throws IOException {
        alive();
        Appender real = JournalDisk.REAL.append(file);
        forcedLength.putIfAbsent(file, Files.size(file));
        return new Appender() {
            @Override
            public void write(ByteBuffer bytes) throws IOException {
                synchronized (LossyDisk.this) {
                    alive();
                    real.write(bytes);
                }
            }

            @Override
            public void force() throws IOException {
                hook.beforeForce(forces.get() + 1);
                synchronized (LossyDisk.this) {
                    alive();
                    real.force();
                    forcedLength.put(file, Files.size(file));
                    forces.incrementAndGet();
                }
            }

            @Override
            public void close() throws IOException {
                real.close();
            }
        };
    }

    @Override
    public synchronized void createForced(Path file, Content content) throws IOException {
        alive();
        JournalDisk.REAL.createForced(file, content);
        forcedLength.put(file, Files.size(file));
        namesNotDurable.add(file);
    }

    @Override
    public synchronized void replace(Path from, Path to) throws IOException {
        alive();
        JournalDisk.REAL.replace(from, to);
        Long length = forcedLength.remove(from);
        if (length != null) {
            forcedLength.put(to, length);
        }
        namesNotDurable.remove(from);
        namesNotDurable.add(to);
    }

    @Override
    public synchronized void forceDirectory(Path dir) throws IOException {
        alive();
        JournalDisk.REAL.forceDirectory(dir);
        namesNotDurable.clear();
    }

    @Override
    public synchronized void delete(Path file) throws IOException {
        alive();
        JournalDisk.REAL.delete(file);
        forcedLength.remove(file);
    }
}
