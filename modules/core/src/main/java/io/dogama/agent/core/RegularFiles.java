package io.dogama.agent.core;

import java.io.IOException;
import java.io.InputStream;
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

    /** A file read whole holds more than its limit. */
    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(Path file, int max) {
            super(file + " is larger than " + max + " bytes");
        }
    }

    /**
     * Reads a file an operator names (a configuration, a plan), through links, as the shell would: but only a
     * regular file, and only up to its limit. A FIFO would block the read until a writer comes, and a device such as
     * {@code /dev/zero} would never end it; neither has a size to check first.
     *
     * @param file the file
     * @param max  most bytes it may hold
     * @return its bytes
     * @throws NotRegular  if it is a folder, a FIFO, a socket or a device
     * @throws TooLarge    if it holds more than {@code max} bytes
     * @throws IOException if it cannot be read
     */
    public static byte[] readAtMost(Path file, int max) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            throw new NotRegular(file, a.isDirectory() ? "a folder" : "a FIFO, a socket or a device");
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] b = in.readNBytes(max + 1);
            if (b.length > max) {
                throw new TooLarge(file, max);
            }
            return b;
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
