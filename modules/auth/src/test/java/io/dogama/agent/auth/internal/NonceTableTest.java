package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class NonceTableTest {
    private static final long T = 1_764_615_845L; // an epoch second

    @Test
    void keyIsRememberedUntilItsSecondHasPassedAndNotLonger() {
        NonceTable t = new NonceTable(10, 0, T);
        assertEquals(NonceTable.Result.INSERTED, t.insert(42, T + 60));
        assertEquals(NonceTable.Result.PRESENT, t.insert(42, T + 60));
        t.advance(T + 60);
        assertTrue(t.contains(42), "still inside its expiry second");
        assertEquals(1, t.live());
        t.advance(T + 61);
        assertFalse(t.contains(42));
        assertEquals(0, t.live());
        assertEquals(NonceTable.Result.INSERTED, t.insert(42, T + 121), "an expired key may be used again");
    }

    @Test
    void fullTableRefusesUntilABucketIsDropped() {
        NonceTable t = new NonceTable(3, 0, T);
        assertEquals(NonceTable.Result.INSERTED, t.insert(1, T + 10));
        assertEquals(NonceTable.Result.INSERTED, t.insert(2, T + 20));
        assertEquals(NonceTable.Result.INSERTED, t.insert(3, T + 20));
        assertEquals(NonceTable.Result.FULL, t.insert(4, T + 20));
        assertEquals(NonceTable.Result.PRESENT, t.insert(2, T + 20), "a replay is still recognised when full");
        t.advance(T + 11);
        assertEquals(2, t.live());
        assertEquals(NonceTable.Result.INSERTED, t.insert(4, T + 30));
        assertEquals(NonceTable.Result.FULL, t.insert(5, T + 30));
        t.advance(T + 21);
        assertEquals(1, t.live(), "one step drops the whole second with both of its keys");
    }

    @Test
    void reloadedEntriesAboveTheCapacityAreAllKept() {
        NonceTable t = new NonceTable(2, 5, T);
        for (long k = 1; k <= 5; k++) {
            t.reload(k, T + 60);
        }
        assertEquals(5, t.live());
        assertEquals(NonceTable.Result.FULL, t.insert(6, T + 60));
        for (long k = 1; k <= 5; k++) {
            assertTrue(t.contains(k));
        }
    }

    /**
     * A journal may hold one nonce twice with different expiries (used again after it expired; the lines are
     * read in file order, not by expiry): the later expiry counts, and the earlier one's second no longer
     * counts it. Within the ring and beyond it.
     */
    @Test
    void aKeyReloadedTwiceKeepsTheLaterExpiryInEitherOrder() {
        long[][] orders = {{T + 10, T + 20}, {T + 20, T + 10}, {T + 10, T + NonceTable.RING + 50},
            {T + NonceTable.RING + 50, T + 10}};
        for (long[] expiries : orders) {
            long later = Math.max(expiries[0], expiries[1]);
            long earlier = Math.min(expiries[0], expiries[1]);
            NonceTable t = new NonceTable(10, 2, T);
            t.reload(42, expiries[0]);
            t.reload(42, expiries[1]);
            assertEquals(1, t.live());
            t.advance(earlier + 1);
            assertTrue(t.contains(42), "kept until the later expiry");
            assertEquals(1, t.live(), "the earlier second did not count it");
            t.advance(later + 1);
            assertFalse(t.contains(42));
            assertEquals(0, t.live());
        }
    }

    @Test
    void secondsBeyondTheRingAreCountedAndDroppedLater() {
        NonceTable t = new NonceTable(10, 0, T);
        long far = T + NonceTable.RING + 100;
        assertEquals(NonceTable.Result.INSERTED, t.insert(7, far));
        assertEquals(NonceTable.Result.INSERTED, t.insert(8, T + 5));
        t.advance(T + 200);
        assertEquals(1, t.live());
        assertTrue(t.contains(7));
        t.advance(far);
        assertTrue(t.contains(7));
        assertEquals(1, t.live());
        t.advance(far + 1);
        assertEquals(0, t.live());
        assertFalse(t.contains(7));
        // A jump over more than the whole ring drops everything in between, the far map included.
        assertEquals(NonceTable.Result.INSERTED, t.insert(9, far + 1 + 2 * NonceTable.RING));
        assertEquals(NonceTable.Result.INSERTED, t.insert(10, far + 2));
        t.advance(far + 10 * NonceTable.RING);
        assertEquals(0, t.live());
    }

    @Test
    void expiredSecondCannotBeInsertedAndAClockGoingBackForgetsNothing() {
        NonceTable t = new NonceTable(10, 0, T);
        t.insert(1, T + 3);
        t.advance(T + 2);
        assertThrows(IllegalArgumentException.class, () -> t.insert(2, T + 1));
        assertFalse(t.accepts(T + 1));
        assertTrue(t.accepts(T + 2));
        t.advance(T - 100);
        assertTrue(t.contains(1));
        assertEquals(1, t.live());
    }

    @Test
    void aRebuildFreesTheSlotsItReplacesAndCloseFreesTheLast() {
        NonceTable t = new NonceTable(1000, 0, T, 16);
        java.lang.foreign.MemorySegment first = t.keySlots();
        for (long k = 1; t.slots() == 16; k++) {
            assertEquals(NonceTable.Result.INSERTED, t.insert(k * 0x9E3779B97F4A7C15L, T + 60));
        }
        assertFalse(first.scope().isAlive(), "the replaced slots are still allocated");
        assertTrue(t.allocated());
        t.close();
        assertFalse(t.allocated());
        assertFalse(t.keySlots().scope().isAlive());
        t.close(); // idempotent
        assertEquals(13, t.live(), "the counts still answer after close");
    }

    /**
     * The reason the slots are off the heap: a table of the default capacity grown to its full size
     * (36 MB) in a JVM whose whole heap is 24 MiB. On the heap it could not be allocated at all; in the
     * agent's 96 MiB heap a rebuild to it needed the old and the new table at once.
     */
    @Test
    @Tag("forked-jvm") // a JVM of its own on the module path, which mutation testing (a class path) leaves out
    void aFullTableLivesBesideAHeapSmallerThanIt() throws Exception {
        String output = ForkedNonceMain.runToEnd(List.of("-Xmx24m", "-XX:+UseSerialGC"), 120, "fill");
        int full = NonceTable.slotsFor(NonceStore.DEFAULT_CAPACITY);
        assertTrue(output.contains("filled " + full + " of " + full), output);
        assertTrue(output.contains("freed true"), output);
    }

    /**
     * Churn far beyond the table size against a plain map: every key the model holds as live is found,
     * nothing expired is, the live counts agree, and the sweep keeps the occupied slots within the bound
     * (capacity plus one sweep cycle's worth of dead slots), so probe runs never fill the table.
     */
    @Test
    void randomChurnAgreesWithAModelAndStaysWithinTheLoadBound() {
        // A table at its full size from the start: the load bound of the fixed table.
        churn(1000, NonceTable.slotsFor(1000), 1, 40, 200_000);
    }

    /**
     * The same churn on a table that starts small: bursts (a new second only every 400 admissions)
     * alternate with quiet spells (a new second every 4), so it grows to its full size, shrinks and
     * grows again; no live key is ever lost across a rebuild.
     */
    @Test
    void aTableThatGrowsAndShrinksWithTheRateAgreesWithTheModel() {
        NonceTable t = churn(1000, 16, 4, 400, 400_000);
        assertTrue(t.slots() <= t.maxSlots());
    }

    @Test
    void aNewTableIsSmallAndGrowsOnlyWithItsLiveEntries() {
        NonceTable t = new NonceTable(2_000_000, 0, T);
        assertEquals(NonceTable.INITIAL_SLOTS, t.slots(), "2,000,000 of capacity do not take 36 MB at start");
        for (long k = 1; k <= 100_000; k++) {
            assertEquals(NonceTable.Result.INSERTED, t.insert(k << 32 | 1, T + 60));
        }
        assertTrue(t.slots() <= 4 * 100_000, "100,000 live nonces in " + t.slots() + " slots");
        for (long k = 1; k <= 100_000; k++) {
            assertTrue(t.contains(k << 32 | 1), "key " + k + " lost in a rebuild");
        }
        t.advance(T + 61);
        assertEquals(0, t.live());
        assertEquals(NonceTable.Result.INSERTED, t.insert(7L << 32, T + 120));
        assertEquals(NonceTable.INITIAL_SLOTS, t.slots(), "back to the initial size once everything expired");
        assertTrue(t.contains(7L << 32));
    }

    /**
     * Churn far beyond the table size against a plain map: every key the model holds as live is found,
     * nothing expired is, the live counts agree, and the occupied slots stay within the load bound
     * (three quarters of a table below its full size; at full size the capacity plus one sweep
     * cycle's worth of dead slots), so probe runs never fill the table.
     */
    private static NonceTable churn(int capacity, int initialSlots, int quiet, int busy, int steps) {
        NonceTable t = new NonceTable(capacity, 0, T, initialSlots);
        Map<Long, Long> model = new HashMap<>();
        SplittableRandom random = new SplittableRandom(7);
        long now = T;
        int sizes = 0;
        int lastSize = t.slots();
        for (int step = 0; step < steps; step++) {
            int every = (step / 20_000) % 2 == 0 ? busy : quiet;
            if (random.nextInt(every) == 0) {
                now++;
                t.advance(now);
                long n = now;
                model.values().removeIf(e -> e < n);
            }
            // Small key space: keys come back after expiry, and clustered keys make long probe runs.
            long key = random.nextLong(4000) << 32 | random.nextLong(1, 4); // never 0, which the table reads as 1
            long expiry = now + random.nextLong(1, 60);
            boolean live = model.containsKey(key);
            NonceTable.Result r = t.insert(key, expiry);
            if (live) {
                assertEquals(NonceTable.Result.PRESENT, r, "step " + step);
            } else if (model.size() >= capacity) {
                assertEquals(NonceTable.Result.FULL, r, "step " + step);
            } else {
                assertEquals(NonceTable.Result.INSERTED, r, "step " + step);
                model.put(key, expiry);
            }
            assertEquals(model.size(), t.live(), "step " + step);
            int bound = t.slots() < t.maxSlots() ? t.slots() - t.slots() / 4
                    : capacity + t.slots() / NonceTable.SWEEP_STEPS + NonceTable.SWEEP_STEPS;
            assertTrue(t.occupied() <= bound, "occupied " + t.occupied() + " of " + t.slots() + " at step " + step);
            assertTrue(t.slots() == t.maxSlots() || t.slots() <= t.maxSlots() / 2,
                    "a table of " + t.slots() + " slots: neither full nor at most half of " + t.maxSlots());
            if (t.slots() != lastSize) {
                sizes++;
                lastSize = t.slots();
            }
            if (step % 5000 == 0) {
                for (long k : model.keySet()) {
                    assertTrue(t.contains(k), "live key lost at step " + step);
                }
            }
        }
        if (initialSlots < t.maxSlots()) {
            assertTrue(sizes >= 3, "the table changed size only " + sizes + " times");
        }
        return t;
    }
}
