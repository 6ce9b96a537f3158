package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalDiskTest {
    /**
     * The segments a start reads are the names the glob {@code nonces.journal.[0-9]*} matched before (the glob itself
     * is the oracle): a digit right after the prefix, anything after it (a name that is not a number is read last and
     * refused if malformed); directories and links are listed as before, and refused when read.
     */
    @Test
    void listsExactlyWhatTheGlobMatched(@TempDir Path dir) throws IOException {
        List<String> names = new ArrayList<>(List.of("nonces.journal", "nonces.journal.", "nonces.journal.1",
                "nonces.journal.42", "nonces.journal.0", "nonces.journal.9x", "nonces.journal.tmp", "nonces.journal.x1",
                "nonces.journal1", "nonces.journalx.1", "xnonces.journal.1", "nonces.lock", "nonces.journal.-1",
                "nonces.journal.1\nx", "nonces.journal.\n1", "nonces.journal. 1", "NONCES.JOURNAL.1"));
        for (String name : names) {
            Files.writeString(dir.resolve(name), "");
        }
        // A digit outside ASCII, where the platform's file name encoding can say it.
        try {
            Files.writeString(dir.resolve("nonces.journal.\u0661"), "");
        } catch (InvalidPathException e) {
            // not representable here: the ASCII names above still decide
        }
        Files.createDirectory(dir.resolve("nonces.journal.7"));
        Files.createSymbolicLink(dir.resolve("nonces.journal.8"), dir.resolve("nonces.journal.1"));
        Files.createSymbolicLink(dir.resolve("nonces.journal.5"), dir.resolve("missing"));

        PathMatcher glob = dir.getFileSystem().getPathMatcher("glob:" + NonceJournal.FILE + ".[0-9]*");
        Set<String> expected;
        try (Stream<Path> all = Files.list(dir)) {
            expected = all.map(Path::getFileName).filter(glob::matches).map(Path::toString).collect(Collectors.toSet());
        }
        Set<String> listed = JournalDisk.listNumbered(dir, NonceJournal.FILE + ".").stream()
                .map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        assertEquals(expected, listed);
        // And the oracle is not empty-handed: the ordinary segments, the directory and the links are among them.
        assertEquals(true, listed.containsAll(Set.of("nonces.journal.1", "nonces.journal.42", "nonces.journal.0",
                "nonces.journal.9x", "nonces.journal.7", "nonces.journal.8", "nonces.journal.5", "nonces.journal.1\nx")),
                listed::toString);
        assertEquals(false, listed.contains("nonces.journal.\n1") || listed.contains("nonces.journal.")
                || listed.contains("nonces.journal.tmp"), listed::toString);
    }
}
