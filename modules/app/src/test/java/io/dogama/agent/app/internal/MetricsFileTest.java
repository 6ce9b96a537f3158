package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metrics file for node_exporter's textfile collector: replaced whole, readable by the collector. */
class MetricsFileTest {
    @TempDir
    Path dir;

    @Test
    void theFileIsReplacedWholeReadableByTheCollectorAndNothingIsLeftBehind() throws IOException {
        Path file = dir.resolve("dogama.prom");
        MetricsFile.write(file, "a 1\n");
        MetricsFile.write(file, "a 2\n");
        assertEquals("a 2\n", Files.readString(file));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(List.of(file), entries());
    }

    private List<Path> entries() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
