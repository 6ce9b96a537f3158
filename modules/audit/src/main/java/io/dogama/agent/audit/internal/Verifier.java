package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.Verification;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Walks the chain from its first line (sequence 1, chained to {@link Chain#GENESIS}) through every
 * file and stops at the first line that breaks it. Which break it is follows from the line's own
 * sequence number against the one expected there:
 * <ul>
 * <li>equal, but the MAC does not match: the line was changed, or a forged line put in its place;</li>
 * <li>higher: the lines in between were removed, or this line was moved up from later;</li>
 * <li>lower: the line repeats an earlier one or was moved down: inserted or reordered.</li>
 * </ul>
 * A line that is not in the format at all was changed (or cut off, when it is the last one).
 */
public final class Verifier {
    private Verifier() {
    }

    /**
     * @param dir the log folder
     * @param key the audit key
     * @return the verdict
     * @throws IOException if a file cannot be read
     */
    public static Verification verify(Path dir, byte[] key) throws IOException {
        return verify(dir, key, Optional.empty());
    }

    /**
     * As {@link #verify(Path, byte[])}, and the log must hold the line the agent anchored ({@link Anchor}): a log cut
     * short at a line boundary, emptied, or replaced by another chain under the same key verifies on its own.
     *
     * @param anchored the agent's last anchored line, if any
     */
    public static Verification verify(Path dir, byte[] key, Optional<Anchor.Head> anchored) throws IOException {
        Chain chain = new Chain(key);
        List<Path> files = Segments.list(dir);
        byte[] previous = Chain.GENESIS;
        long expected = 1;
        for (Path file : files) {
            long lineNo = 0;
            try (InputStream in = new BufferedInputStream(Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS))) {
                while (true) {
                    ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
                    boolean complete = readLine(in, buf);
                    if (!complete && buf.size() == 0) {
                        break;
                    }
                    lineNo++;
                    if (!complete) {
                        return new Verification.Broken(file, lineNo, -1,
                                "the line has no end: cut off (a write interrupted by a crash) or changed");
                    }
                    Chain.Parsed p = buf.size() > Chain.MAX_LINE_BYTES ? null
                            : Chain.parse(buf.toString(StandardCharsets.UTF_8));
                    if (p == null) {
                        return new Verification.Broken(file, lineNo, -1, "not an audit line: changed");
                    }
                    boolean macOk = chain.matches(previous, p);
                    if (p.seq() == expected && macOk) {
                        if (anchored.isPresent() && p.seq() == anchored.get().seq()
                                && !anchored.get().named(p.seq(), p.mac())) {
                            return new Verification.Broken(file, lineNo, p.seq(), "not the line the agent wrote with"
                                    + " this seq (" + Anchor.FILE_NAME + "): the log was replaced by another one");
                        }
                        previous = p.mac();
                        expected++;
                        continue;
                    }
                    String reason;
                    if (p.seq() == expected) {
                        reason = "its MAC does not match: the line was changed, or inserted in place of the original";
                    } else if (p.seq() > expected) {
                        reason = "expected seq " + expected + ": line(s) " + expected
                                + (p.seq() - 1 > expected ? ".." + (p.seq() - 1) : "") + " removed, or lines reordered";
                    } else {
                        reason = "expected seq " + expected + ": seq " + p.seq()
                                + " again or out of order: a line was inserted or lines reordered";
                    }
                    return new Verification.Broken(file, lineNo, p.seq(), reason);
                }
            }
        }
        if (anchored.isPresent() && expected - 1 < anchored.get().seq()) {
            Path last = files.isEmpty() ? dir : files.getLast();
            long lines = 0;
            if (!files.isEmpty()) {
                try (var s = Files.lines(last, StandardCharsets.ISO_8859_1)) {
                    lines = s.count();
                }
            }
            return new Verification.Broken(last, lines + 1, expected, "the log ends at seq " + (expected - 1)
                    + ", but the agent wrote it up to seq " + anchored.get().seq() + " (" + Anchor.FILE_NAME
                    + "): lines were cut off its end, or the log was emptied");
        }
        return new Verification.Intact(files.size(), expected - 1, expected - 1);
    }

    /** @return true if a newline ended the line; bytes past {@link Chain#MAX_LINE_BYTES} are counted, not kept */
    private static boolean readLine(InputStream in, ByteArrayOutputStream buf) throws IOException {
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                return true;
            }
            if (buf.size() <= Chain.MAX_LINE_BYTES) {
                buf.write(b);
            }
        }
        return false;
    }
}
