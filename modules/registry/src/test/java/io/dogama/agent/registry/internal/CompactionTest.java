package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The registry file keeps superseded frames until their garbage outgrows the live ones, then is rewritten with the
 * live frames only: every instance reads the same before and after (a tampered one and a forged key included), a
 * compaction that cannot be made changes nothing, and one halted at any step loses nothing.
 */
class CompactionTest {
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @TempDir
    Path dir;

    @AfterEach
    void reset() {
        Compactions.reset();
    }

    /** Replaces {@link ForkedRegistryMain#BIG} until the registry compacted; @return its last generation. */
    private static int churnUntilCompacted(Registry r, Compactions compactions) throws Exception {
        int before = compactions.done();
        int g = (int) ((Lookup.Found) r.get(ForkedRegistryMain.BIG)).generation();
        for (int i = 0; i < 100 && compactions.done() == before; i++) {
            assertInstanceOf(CasResult.Stored.class, r.replace(g, ForkedRegistryMain.big(g + 1)));
            g++;
        }
        assertTrue(compactions.done() > before, "no compaction after 100 replaces of a 260 kB record");
        return g;
    }

    @Test
    void aCompactedFileHoldsTheSameInstancesAndIsSmaller() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.insert(Samples.record("bravo-1", 2));
        }
        // A tampered record and a forged key, as an attacker left them: both must stay what they read as.
        byte[] flipped = RawLog.get(dir, "bravo-1#1");
        flipped[flipped.length - 1] ^= 0x01;
        RawLog.put(dir, "bravo-1#1", flipped);
        RawLog.put(dir, "zulu-1#7", new byte[] {1});
        Compactions compactions = Compactions.count();
        List<Lookup> before;
        int g;
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(ForkedRegistryMain.big(1));
            r.replace(1, Samples.replacing("alpha-1", 2));
            before = r.all();
            long size = Files.size(dir.resolve(LogRegistry.FILE));
            g = churnUntilCompacted(r, compactions);
            assertTrue(Files.size(dir.resolve(LogRegistry.FILE)) < size + 3 * 270_000,
                    "the file holds about the live frames only");
            assertEquals(withBig(before, g), r.all(), "the same instances after the compaction");
            assertInstanceOf(CasResult.Stored.class, r.replace(2, Samples.replacing("alpha-1", 3)));
        }
        assertFalse(Files.exists(dir.resolve(LogRegistry.TEMP_FILE)));
        try (Registry r = Registry.open(dir, 10)) {
            List<Lookup> after = r.all();
            assertInstanceOf(Lookup.Tampered.class, find(after, "bravo-1"), "tampered before, tampered after");
            assertInstanceOf(Lookup.Tampered.class, find(after, "zulu-1#7"), "the forged key is kept");
            assertEquals(new Lookup.Found(Samples.replacing("alpha-1", 3), 3), find(after, "alpha-1"));
            assertEquals(new Lookup.Found(ForkedRegistryMain.big(g), g), find(after, ForkedRegistryMain.BIG));
            assertEquals(4, after.size());
        }
        assertArrayEquals(flipped, RawLog.get(dir, "bravo-1#1"), "the tampered value is copied byte for byte");
    }

    private static List<Lookup> withBig(List<Lookup> listing, int g) {
        return listing.stream().map(l -> l.instanceId().equals(ForkedRegistryMain.BIG)
                ? new Lookup.Found(ForkedRegistryMain.big(g), g) : l).toList();
    }

    private static Lookup find(List<Lookup> all, String id) {
        return all.stream().filter(l -> l.instanceId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError(id + " is not listed: " + all));
    }

    /**
     * The one time the running registry reads its file back, a record changed meanwhile (an older authentic one of the
     * same slot and length in place of the current one) is never copied and signed into the new file: no compaction,
     * and the next start refuses the file rather than roll the instance back.
     */
    @Test
    void aRecordChangedWhileTheRegistryRunsIsNeverCompactedIntoTheNewFile() throws Exception {
        Compactions compactions = Compactions.count();
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.record("alpha-1", 1));
            r.replace(2, Samples.record("alpha-1", 1)); // generation 3, current, in slot 1; generation 1's frame dead
            RawLog.replaceInPlace(dir, "alpha-1#1", RawLog.frames(dir).get(0).value());
            r.insert(ForkedRegistryMain.big(1));
            for (int g = 1; g < 12; g++) {
                assertInstanceOf(CasResult.Stored.class, r.replace(g, ForkedRegistryMain.big(g + 1)));
            }
            assertEquals(0, compactions.done(), "no compaction signs a changed record into a new file");
            assertEquals(3, ((Lookup.Found) r.get("alpha-1")).generation(), "the memory holds what was written");
        }
        RegistryException refused = assertThrows(RegistryException.class, () -> Registry.open(dir, 10));
        assertTrue(refused.getMessage().contains("not the ones its head vouches for"), refused.getMessage());
    }

    @Test
    void aCompactionThatCannotBeMadeChangesNothingAndIsTriedAgainLater() throws Exception {
        Compactions compactions = Compactions.count();
        int g = 1;
        try (Registry r = Registry.open(dir, 10)) {
            // Something in the temporary file's place that the registry will not remove: a non-empty folder.
            Files.createDirectories(dir.resolve(LogRegistry.TEMP_FILE).resolve("in-the-way"));
            r.insert(ForkedRegistryMain.big(1));
            for (; g < 12; g++) {
                assertInstanceOf(CasResult.Stored.class, r.replace(g, ForkedRegistryMain.big(g + 1)));
            }
            assertEquals(0, compactions.done(), "no compaction could be made");
            assertTrue(Files.size(dir.resolve(LogRegistry.FILE)) > 10 * 260_000L, "every frame is still there");
            Files.delete(dir.resolve(LogRegistry.TEMP_FILE).resolve("in-the-way"));
            Files.delete(dir.resolve(LogRegistry.TEMP_FILE));
            g = churnUntilCompacted(r, compactions);
        }
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(new Lookup.Found(ForkedRegistryMain.big(g), g), r.get(ForkedRegistryMain.BIG));
        }
    }

    @ParameterizedTest
    @EnumSource(LogRegistry.CompactionStep.class)
    @Tag("forked-jvm") // a JVM of its own on the module path, which mutation testing (a class path) leaves out
    void aCompactionHaltedAfterAnyStepLosesNoWrite(LogRegistry.CompactionStep step) throws Exception {
        Path data = Files.createDirectory(dir.resolve("data"));
        Path log = dir.resolve("child.out");
        Process p = ForkedJvm.command(List.of(), "compact-crash", data.toString(), step.name())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the compacting JVM did not end in time");
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertEquals(ForkedRegistryMain.HALTED, p.exitValue(), "the child must halt after " + step + ": " + out);
        int reported = out.lines().filter(l -> l.startsWith("wrote ")).mapToInt(l -> Integer.parseInt(l.substring(6)))
                .max().orElseThrow();
        assertEquals(step == LogRegistry.CompactionStep.WRITTEN, Files.exists(data.resolve(LogRegistry.TEMP_FILE)),
                "the temporary file exists only before the rename");
        try (Registry r = Registry.open(data, 10)) {
            // The write that made the garbage outgrow the live frames was forced before the compaction began; its
            // caller had not been answered yet.
            Lookup.Found big = assertInstanceOf(Lookup.Found.class, r.get(ForkedRegistryMain.BIG));
            assertEquals(reported + 1, big.generation(), "every forced write, and nothing more");
            assertEquals(ForkedRegistryMain.big((int) big.generation()), big.record());
            assertInstanceOf(Lookup.Found.class, r.get(ForkedRegistryMain.SMALL));
            assertEquals(2, r.all().size());
        }
        assertFalse(Files.exists(data.resolve(LogRegistry.TEMP_FILE)), "the open removed the temporary file");
    }
}
