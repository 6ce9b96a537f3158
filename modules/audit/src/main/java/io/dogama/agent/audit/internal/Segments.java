package io.dogama.agent.audit.internal;

import io.dogama.agent.core.RegularFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of one log: {@code audit-000001.jsonl}, {@code audit-000002.jsonl}, ... in the order the
 * chain runs through them; the highest number is the one being written. Other names are ignored, so
 * an operator's notes or compressed archives in the folder never confuse the chain.
 */
final class Segments {
    private static final Pattern NAME = Pattern.compile("^audit-([0-9]{6,9})\\.jsonl$");

    private Segments() {
    }

    static Path file(Path dir, int number) {
        return dir.resolve(String.format("audit-%06d.jsonl", number));
    }

    /** A log file someone other than the folder's owner owns: never written; the operator moves it aside. */
    static final class Foreign extends IOException {
        private static final long serialVersionUID = 1L;

        Foreign(Path file, String what) {
            super(file + " is named like a log file but is " + what + "; move it aside");
        }
    }

    /**
     * @return the files in chain order, each a regular file: opened, a link would lead the writer's repair of a
     *         torn tail (a truncate) or its rotation (a create) to another file, a FIFO would hang the start or the
     *         verifier in open(2), a device would feed the verifier for ever
     * @throws RegularFiles.NotRegular if one is not
     */
    static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> NAME.matcher(p.getFileName().toString()).matches()).forEach(out::add);
        }
        for (Path p : out) {
            RegularFiles.requireIfPresent(p);
        }
        out.sort((a, b) -> Integer.compare(number(a), number(b)));
        return out;
    }

    /**
     * What the writer adds before it opens a file to write: it belongs to the folder's owner (the agent; a file of
     * anyone else's would stay writable by them). A second name is not refused: a hard link to one of the agent's
     * other files needs access to the data directory (0700), and hard-link backups of the folder must not stop
     * the agent.
     *
     * @param file a regular file ({@link RegularFiles#requireIfPresent})
     * @param dir  the log folder, whose owner the start checked
     * @throws Foreign if not
     */
    static void requireOwn(Path file, Path dir) throws IOException {
        Object owner = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (!owner.equals(Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS))) {
            throw new Foreign(file, "owned by UID " + owner + ", not by the folder's owner");
        }
    }

    static int number(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("audit: not a log file name");
        }
        return Integer.parseInt(m.group(1));
    }
}
