package io.dogama.agent.audit.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** The last lines of a log, newest file first until enough are found. */
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
            try (BufferedReader r = new BufferedReader(new InputStreamReader(
                    Files.newInputStream(files.get(i), LinkOption.NOFOLLOW_LINKS), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
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
}
