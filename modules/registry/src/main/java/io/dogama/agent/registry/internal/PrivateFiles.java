package io.dogama.agent.registry.internal;

import io.dogama.agent.core.KeyFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Every file the registry creates in the data directory is created with mode 0600 (SPEC section 9: the
 * map holds plans, env values included). The mode is an attribute of the creating call itself, never a
 * chmod afterwards, so that no other user can open the file in between; the process umask can only
 * take bits away from 0600. A file that already exists keeps its mode (the data directory check of the
 * app warns about loose ones).
 */
final class PrivateFiles {
    private PrivateFiles() {
    }

    /** @return the 0600 attribute ({@link KeyFiles#MODE}) for a creating call */
    static FileAttribute<Set<PosixFilePermission>> mode() {
        return PosixFilePermissions.asFileAttribute(EnumSet.copyOf(KeyFiles.MODE));
    }

    /**
     * Creates {@code file} with mode 0600 and opens it for reading and writing; fails if anything, a link included,
     * is in its place.
     */
    static FileChannel createNew(Path file) throws IOException {
        return FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), mode());
    }
}
