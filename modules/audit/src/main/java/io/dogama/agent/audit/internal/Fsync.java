package io.dogama.agent.audit.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Syncs a directory, so that a file created in it survives a crash with its name. */
final class Fsync {
    private Fsync() {
    }

    static void directory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
