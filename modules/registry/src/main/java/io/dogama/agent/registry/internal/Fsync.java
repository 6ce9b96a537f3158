package io.dogama.agent.registry.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Makes renames, creations and deletions in a directory durable. */
final class Fsync {
    private Fsync() {
    }

    static void directory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Deletes a file durably. */
    static void delete(Path file) throws IOException {
        if (Files.deleteIfExists(file)) {
            directory(file.getParent());
        }
    }
}
