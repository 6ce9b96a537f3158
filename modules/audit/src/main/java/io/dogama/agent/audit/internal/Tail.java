package io.dogama.agent.audit.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The last lines of a log, newest file first until enough are found. They are printed unverified, so whoever
 * can write the log's storage chooses their bytes: each line is cut at {@link Chain#MAX_LINE_BYTES} (no line of
 * the agent's is longer, and a planted one without a newline must not fill the memory), and control characters
 * (which the agent's JSON never holds raw) are shown escaped, so a planted line cannot drive the terminal it is
 * printed on.
 */
public final class Tail {
    private Tail() {
    }

    /**
     * @param dir the log folder
     * @param n   how many lines
     * @return up to {@code n} lines, oldest first
     * @throws IOException if a file cannot be read
     */
    public static List<String> lines(Path dir, int n) throws IOException {
        List<Path> files = Segments.list(dir);
        Deque<String> out = new ArrayDeque<>();
        for (int i = files.size() - 1; i >= 0 && out.size() < n; i--) {
            Deque<String> ring = new ArrayDeque<>();
            try (InputStream in = new BufferedInputStream(Files.newInputStream(files.get(i), LinkOption.NOFOLLOW_LINKS))) {
                for (String line = next(in); line != null; line = next(in)) {
                    ring.addLast(line);
                    if (ring.size() > n - out.size()) {
                        ring.removeFirst();
                    }
                }
            }
            while (!ring.isEmpty()) {
                out.addFirst(ring.removeLast());
            }
        }
        return new ArrayList<>(out);
    }

    /** @return the next line as it may be shown, or null at the end */
    private static String next(InputStream in) throws IOException {
        ByteArrayOutputStream kept = new ByteArrayOutputStream(512);
        long more = 0;
        int b;
        boolean any = false;
        while ((b = in.read()) != -1 && b != '\n') {
            any = true;
            if (kept.size() < Chain.MAX_LINE_BYTES) {
                kept.write(b);
            } else {
                more++;
            }
        }
        if (b == -1 && !any) {
            return null;
        }
        String shown = shown(kept.toString(StandardCharsets.UTF_8));
        return more == 0 ? shown : shown + " ... [" + more + " more bytes]";
    }

    /** Control characters (C0, DEL, C1) and the bidirectional overrides as {@code \\uXXXX}; the rest as it is. */
    static String shown(String line) {
        StringBuilder sb = null;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e)
                    || (c >= 0x2066 && c <= 0x2069);
            if (control && sb == null) {
                sb = new StringBuilder(line.length() + 16).append(line, 0, i);
            }
            if (sb != null) {
                if (control) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
        }
        return sb == null ? line : sb.toString();
    }
}
