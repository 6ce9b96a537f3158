package io.dogama.agent.audit.internal;

import java.io.IOException;
import java.nio.file.Files;
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

    /** @return the files in chain order */
    static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> NAME.matcher(p.getFileName().toString()).matches()).forEach(out::add);
        }
        out.sort((a, b) -> Integer.compare(number(a), number(b)));
        return out;
    }

    static int number(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("audit: not a log file name");
        }
        return Integer.parseInt(m.group(1));
    }
}
