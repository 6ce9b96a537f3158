package io.dogama.agent.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The one check before the agent opens one of its own files by name: what has the name must be a regular file,
 * seen without following a link. Opened to write, a FIFO blocks open(2) until a reader comes (a start that hangs
 * for ever, which no supervisor restarts); a link would lead a create, a lock, a truncate or an append to another
 * file. Callers then open with {@link LinkOption#NOFOLLOW_LINKS} too.
 */
public final class RegularFiles {
    private RegularFiles() {
    }

    /** Something that is not a regular file has the name of one of the agent's files; never opened. */
    public static final class NotRegular extends IOException {
        private static final long serialVersionUID = 1L;

        NotRegular(Path file, String what) {
            super(file + " is " + what + ", not a regular file; move it aside");
        }
    }

    /**
     * @param file a file the agent is about to open
     * @return false if nothing has its name (the caller may create it)
     * @throws NotRegular  if a link, a folder, a FIFO, a socket or a device has it
     * @throws IOException if it cannot be looked at
     */
    public static boolean requireIfPresent(Path file) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException absent) {
            return false;
        }
        if (!a.isRegularFile()) {
            throw new NotRegular(file, a.isSymbolicLink() ? "a symbolic link" : a.isDirectory() ? "a folder"
                    : "a FIFO, a socket or a device");
        }
        return true;
    }
}
