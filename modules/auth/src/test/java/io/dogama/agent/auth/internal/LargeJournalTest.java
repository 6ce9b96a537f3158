package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start that finds a large nonce journal, on the heap the agent's image gives its JVM (96 MiB): what a
 * crash or a restart under a few thousand signed requests a second leaves behind. Before, every start read
 * each segment whole and parsed every line, expired ones too, into objects on the heap, and built the
 * rewritten segment there as well: from about 500,000 lines on, every start ended in an
 * {@code OutOfMemoryError}, and a supervisor's restarts met the same journal until someone deleted it.
 * The journal is now streamed: the lines are counted, then copied line by line into the new segment
 * while their fingerprints go straight into the table outside the heap.
 */
// A JVM of its own on the module path: Surefire runs it; mutation testing (a class path) leaves it out.
@Tag("forked-jvm")
class LargeJournalTest {
    /** More than the 1,000,000 nonces the default capacity's table holds at 30 s of 30,000 req/s. */
    private static final int LINES = 1_300_000;
    /** The heap of the agent's image (jlink/pom.xml, dogama.image.jvm) and its collector. */
    private static final List<String> IMAGE_HEAP = List.of("-Xmx96m", "-Xmn16m", "-XX:+UseSerialGC");

    @TempDir
    Path dir;

    @Test
    void aStartReloadsMoreThanAMillionUnexpiredNoncesOnTheImagesHeap() throws Exception {
        long now = System.currentTimeMillis();
        writeJournal(now - 10_000, now + 600_000);
        assertEquals("opened " + LINES, reload());
        // Everything was kept, so the rewritten segment holds every line again.
        assertEquals(LINES + 1, lineCount(dir.resolve(NonceJournal.FILE)));
    }

    @Test
    void aStartDropsMoreThanAMillionExpiredNoncesOnTheImagesHeap() throws Exception {
        long now = System.currentTimeMillis();
        writeJournal(now - 600_000, now - 500_000);
        assertEquals("opened 0", reload());
        assertEquals(1, lineCount(dir.resolve(NonceJournal.FILE)), "only the header is left");
    }

    /** The journal an agent leaves after {@link #LINES} admissions, split over two segments. */
    private void writeJournal(long since, long expiry) throws IOException {
        Path[] segments = {dir.resolve(NonceJournal.FILE), dir.resolve(NonceJournal.FILE + ".1")};
        for (int s = 0; s < segments.length; s++) {
            try (BufferedWriter w = Files.newBufferedWriter(segments[s], StandardCharsets.US_ASCII)) {
                w.write("DOGAMA-NONCES-V1 " + since + "\n");
                for (int i = s; i < LINES; i += segments.length) {
                    w.write((expiry + i % 1000) + " large-journal-" + String.format("%014d", i) + "\n");
                }
            }
        }
    }

    /** Opens the memory in a forked JVM with the image's heap; returns its last line of output. */
    private String reload() throws Exception {
        String output = ForkedNonceMain.runToEnd(IMAGE_HEAP, 180, "reload", dir.toString());
        List<String> lines = output.lines().filter(l -> l.startsWith("opened ")).toList();
        assertEquals(1, lines.size(), output);
        return lines.getFirst();
    }

    private static long lineCount(Path file) throws IOException {
        try (var lines = Files.lines(file, StandardCharsets.US_ASCII)) {
            return lines.count();
        }
    }
}
