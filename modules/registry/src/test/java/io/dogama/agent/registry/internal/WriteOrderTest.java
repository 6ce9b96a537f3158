package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a write does to the disk, in order: its frame at the recorded end, forced, then the head naming the new end,
 * forced, and only then the memory. Each step failed, interrupted or held on purpose through the registry's disk seam.
 */
class WriteOrderTest {
    private static final long WAIT_SECONDS = 30;
    private static final String HEAD = "write@0+" + LogRegistry.HEAD_BYTES;

    @TempDir
    Path dir;
    private RecordingDisk disk;

    @BeforeEach
    void install() {
        disk = RecordingDisk.install();
    }

    @AfterEach
    void uninstall() {
        RecordingDisk.uninstall();
        Compactions.reset();
    }

    private long size() throws IOException {
        return Files.size(dir.resolve(LogRegistry.FILE));
    }

    private interface Write {
        CasResult run(Registry r) throws RegistryException;
    }

    /** Runs {@code write} and checks that it was its frame, forced, then the head, forced; @return its result. */
    private CasResult assertFrameForcedThenHeadForced(Registry r, Write write) throws Exception {
        long end = size();
        disk.clear();
        CasResult result = write.run(r);
        long frame = size() - end;
        assertTrue(frame > 0, "a frame was appended");
        assertEquals(List.of("write@" + end + "+" + frame, "force", HEAD, "force"), disk.ops());
        return result;
    }

    @Test
    void everyWriteIsItsFrameForcedThenTheHeadForcedAndARefusedOneTouchesNothing() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            assertInstanceOf(CasResult.Stored.class,
                    assertFrameForcedThenHeadForced(r, x -> x.insert(Samples.record("alpha-1", 1))));
            assertInstanceOf(CasResult.Stored.class,
                    assertFrameForcedThenHeadForced(r, x -> x.replace(1, Samples.replacing("alpha-1", 2))));
            assertInstanceOf(CasResult.Removed.class, assertFrameForcedThenHeadForced(r, x -> x.remove("alpha-1", 2)));
            disk.clear();
            assertInstanceOf(CasResult.Absent.class, r.replace(2, Samples.record("alpha-1", 3)));
            assertInstanceOf(CasResult.Absent.class, r.remove("alpha-1", 2));
            assertEquals(List.of(), disk.ops(), "a refused write touches nothing");
        }
    }

    @Test
    void aReaderSeesAWriteOnlyOnceItsHeadIsForced() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            CountDownLatch atHeadForce = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            disk.clear();
            disk.before = (op, index, ch) -> {
                if (index == 3) {
                    atHeadForce.countDown();
                    try {
                        assertTrue(go.await(WAIT_SECONDS, TimeUnit.SECONDS), "the test never let the force go");
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                }
            };
            CompletableFuture<CasResult> replacing = CompletableFuture.supplyAsync(() -> {
                try {
                    return r.replace(1, Samples.replacing("alpha-1", 2));
                } catch (RegistryException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                assertTrue(atHeadForce.await(WAIT_SECONDS, TimeUnit.SECONDS), "the replace never reached the head's force");
                assertEquals(new Lookup.Found(Samples.record("alpha-1", 1), 1), r.get("alpha-1"));
                assertEquals(List.of(new Lookup.Found(Samples.record("alpha-1", 1), 1)), r.all());
            } finally {
                go.countDown();
            }
            assertInstanceOf(CasResult.Stored.class, replacing.get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertEquals(new Lookup.Found(Samples.replacing("alpha-1", 2), 2), r.get("alpha-1"));
        }
    }

    /** The frame's force (1) or the head's (3) fails: the kernel may have dropped pages, so the registry stops. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aForceThatFailsStopsTheRegistryAndTheNextStartHasTheWriteWholeOrNot(int failing) throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            disk.clear();
            disk.before = (op, index, ch) -> {
                if (index == failing) {
                    throw new IOException("EIO (injected)");
                }
            };
            assertThrows(RegistryException.class, () -> r.replace(1, Samples.replacing("alpha-1", 2)));
            disk.before = (op, index, ch) -> {
            };
            RegistryException stopped = assertThrows(RegistryException.class, () -> r.get("alpha-1"));
            assertTrue(stopped.getMessage().contains("restart the agent"), stopped.getMessage());
            assertThrows(RegistryException.class, r::all);
            assertThrows(RegistryException.class, () -> r.insert(Samples.record("bravo-1", 2)));
        }
        try (Registry r = Registry.open(dir, 10)) {
            Lookup l = r.get("alpha-1");
            assertTrue(l.equals(new Lookup.Found(Samples.record("alpha-1", 1), 1))
                    || l.equals(new Lookup.Found(Samples.replacing("alpha-1", 2), 2)), l.toString());
        }
    }

    /** A frame write that fails (a full or failing disk) is cut off again; the memory and the registry stay as they were. */
    @ParameterizedTest
    @ValueSource(strings = {"replace", "remove"})
    void aFrameWriteThatFailsIsCutOffAndChangesNothing(String op) throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            r.replace(1, Samples.replacing("alpha-1", 2));
            long before = size();
            disk.clear();
            disk.before = (o, index, ch) -> {
                if (index == 0) {
                    Disk.REAL.write(ch, ByteBuffer.wrap(new byte[7]), before);
                    throw new IOException("EIO (injected) after 7 bytes");
                }
            };
            assertThrows(RegistryException.class, () -> {
                if (op.equals("replace")) {
                    r.replace(2, Samples.record("alpha-1", 3));
                } else {
                    r.remove("alpha-1", 2);
                }
            });
            disk.before = (o, index, ch) -> {
            };
            assertEquals(before, size(), "what the failed write appended is cut off");
            List<String> ops = disk.ops();
            assertTrue(ops.get(0).startsWith("write@" + before + "+"), ops.toString());
            assertEquals(List.of("truncate@" + before, "force"), ops.subList(1, ops.size()), "cut off, the cut forced");
            assertEquals(new Lookup.Found(Samples.replacing("alpha-1", 2), 2), r.get("alpha-1"));
            assertInstanceOf(CasResult.Stored.class, r.replace(2, Samples.record("alpha-1", 3)));
        }
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(new Lookup.Found(Samples.record("alpha-1", 3), 3), r.get("alpha-1"));
        }
    }

    /**
     * An interrupt closes the file for every thread, at any of a write's four steps: the head is put back and forced
     * before the file is cut back, the write is made again, once, and the interrupt is kept for the caller.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void anInterruptAtAnyStepOfAWriteUndoesItForcedAndStoresItOnce(int at) throws Exception {
        long end;
        long frame;
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
            end = size();
            disk.clear();
            disk.before = (op, index, ch) -> {
                if (index == at) {
                    // What the steps before this one did is on the file already.
                    ch.close();
                    Thread.currentThread().interrupt();
                    throw new ClosedByInterruptException();
                }
            };
            CasResult stored;
            try {
                stored = r.replace(1, Samples.replacing("alpha-1", 2));
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            }
            assertInstanceOf(CasResult.Stored.class, stored);
            frame = size() - end;
            List<String> ops = disk.ops();
            assertEquals(List.of(HEAD, "force", "truncate@" + end, "force", "write@" + end + "+" + frame, "force", HEAD,
                    "force"), ops.subList(at + 1, ops.size()), "undone, forced, then written once: " + ops);
        }
        RecordingDisk.uninstall();
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(new Lookup.Found(Samples.replacing("alpha-1", 2), 2), r.get("alpha-1"));
            assertEquals(end + frame, size(), "nothing was past the recorded end to cut");
        }
    }

    @Test
    void aWriterWhoseThreadWasInterruptedStillCompacts() throws Exception {
        RecordingDisk.uninstall();
        Compactions renamed = Compactions.count();
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(ForkedRegistryMain.big(1));
            for (int g = 1; g < 100 && renamed.done() == 0; g++) {
                Thread.currentThread().interrupt();
                CasResult stored;
                try {
                    stored = r.replace(g, ForkedRegistryMain.big(g + 1));
                } finally {
                    assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
                }
                assertInstanceOf(CasResult.Stored.class, stored);
            }
            assertEquals(1, renamed.done(), "the compaction was made with the caller's interrupt held back");
        }
    }

    @Test
    void aNewRegistryIsForcedAndNamedOnTheDiskBeforeItsKeyAndRenamedAfter() throws Exception {
        Registry.open(dir, 10).close();
        assertEquals(List.of(HEAD, "force", "forceDirectory", "move registry.dat.tmp->registry.dat", "forceDirectory"),
                disk.ops());
    }

    @Test
    void aWriteACrashLeftPastTheRecordedEndIsCutOffAndTheCutForced() throws Exception {
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(Samples.record("alpha-1", 1));
        }
        long end = size();
        RawLog.appendUnsigned(dir, LogRegistry.frame(LogRegistry.DROP, "alpha-1", null));
        disk.clear();
        try (Registry r = Registry.open(dir, 10)) {
            assertEquals(List.of("truncate@" + end, "force"), disk.ops());
            assertInstanceOf(Lookup.Found.class, r.get("alpha-1"));
        }
    }

    @Test
    void aCompactionForcesItsFileBeforeTheRenameAndTheFolderAfter() throws Exception {
        Compactions renamed = Compactions.count();
        try (Registry r = Registry.open(dir, 10)) {
            r.insert(ForkedRegistryMain.big(1));
            for (int g = 1; g < 100 && renamed.done() == 0; g++) {
                disk.clear();
                assertInstanceOf(CasResult.Stored.class, r.replace(g, ForkedRegistryMain.big(g + 1)));
            }
            assertEquals(1, renamed.done());
            List<String> ops = disk.ops();
            assertEquals(List.of(HEAD, "force", "move registry.dat.tmp->registry.dat", "forceDirectory"),
                    ops.subList(ops.size() - 4, ops.size()), "the new file's head written and forced, then renamed, "
                            + "then the folder forced: " + ops);
        }
    }
}
