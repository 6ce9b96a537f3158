package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalDiskTest {
    /**
     * The segments a start reads are the names the glob {@code nonces.journal.[0-9]*} matched before: a digit right
     * after the prefix, anything after it (a name that is not a number is read last and refused if malformed).
     */
    @Test
    void listsExactlyThePrefixFollowedByADigit(@TempDir Path dir) throws IOException {
        for (String name : new String[] {"nonces.journal", "nonces.journal.", "nonces.journal.1", "nonces.journal.42",
                "nonces.journal.0", "nonces.journal.9x", "nonces.journal.tmp", "nonces.journal.x1", "nonces.journal1",
                "nonces.journalx.1", "xnonces.journal.1", "nonces.lock", "nonces.journal.-1", "nonces.journal./"}) {
            if (!name.endsWith("/")) {
                Files.writeString(dir.resolve(name), "");
            }
        }
        Files.createDirectory(dir.resolve("nonces.journal.7"));
        Set<String> listed = JournalDisk.listNumbered(dir, NonceJournal.FILE + ".").stream()
                .map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        assertEquals(Set.of("nonces.journal.1", "nonces.journal.42", "nonces.journal.0", "nonces.journal.9x",
                "nonces.journal.7"), listed);
    }
}
