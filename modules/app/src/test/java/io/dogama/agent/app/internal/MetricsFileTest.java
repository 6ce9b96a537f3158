package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
        assertEquals(List.of(file), entries(dir));
    }

    /**
     * The folder passed at the start and is opened to others later: a writer there could put a link to
     * any file in place of the temporary file between its creation and its mode change, so nothing is
     * written any more (the start's check alone let every later write through).
     */
    @Test
    void aFolderOpenedToOthersAfterTheStartIsNotWrittenAgain() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("textfile"));
        Path file = folder.resolve("dogama.prom");
        MetricsFile.write(file, "a 1\n");
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));

        IOException e = assertThrows(MetricsFile.UntrustedFolder.class, () -> MetricsFile.write(file, "a 2\n"));
        assertTrue(e.getMessage().contains("writable by group or others"), e.getMessage());
        assertEquals("a 1\n", Files.readString(file));
        assertEquals(List.of(file), entries(folder));
    }

    /** A folder missing at the start (which passes as far as it goes) and made later by root, writable by all. */
    @Test
    void aFolderMadeAfterTheStartIsCheckedBeforeItsFirstWrite() throws Exception {
        Path folder = dir.resolve("later");
        Path file = folder.resolve("dogama.prom");
        TrustedPath.requireAncestors("metrics file", file);
        assertThrows(NoSuchFileException.class, () -> MetricsFile.write(file, "a 1\n"));

        Files.createDirectory(folder);
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThrows(MetricsFile.UntrustedFolder.class, () -> MetricsFile.write(file, "a 1\n"));
        assertEquals(List.of(), entries(folder));
    }

    /**
     * A sticky folder open to all (as /tmp): another user could make the file's name theirs, and every rename of
     * the agent's would then fail while the collector read their file. Nothing is written there.
     */
    @Test
    void aStickyFolderOpenToOthersIsNotWritten() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(folder, "unix:mode", 01777);
        Path file = folder.resolve("dogama.prom");
        IOException e = assertThrows(MetricsFile.UntrustedFolder.class, () -> MetricsFile.write(file, "a 1\n"));
        assertTrue(e.getMessage().contains("writable by group or others (mode 1777)"), e.getMessage());
        assertEquals(List.of(), entries(folder));
    }

    /**
     * The name already a link to a file in a folder of the agent's own: the folder the rename happens in is the one
     * checked, not the link's target's (a helper's review of the first version).
     */
    @Test
    void aLinkPlantedAtTheNameDoesNotMoveTheCheckToItsTargetsFolder() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("shared"));
        Path own = Files.createDirectory(dir.resolve("own"));
        Path target = Files.writeString(own.resolve("theirs.prom"), "a 666\n");
        Files.setAttribute(folder, "unix:mode", 01775);
        Path file = Files.createSymbolicLink(folder.resolve("dogama.prom"), target);
        IOException e = assertThrows(MetricsFile.UntrustedFolder.class, () -> MetricsFile.write(file, "a 1\n"));
        assertTrue(e.getMessage().contains("writable by group or others (mode 1775)"), e.getMessage());
        assertEquals("a 666\n", Files.readString(target));
    }

    private static List<Path> entries(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.sorted().toList();
        }
    }
}
