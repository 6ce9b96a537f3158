package io.dogama.agent.auth.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.TreeMap;

/**
 * The set of remembered nonce fingerprints ({@link NonceHash}), each with the epoch second after
 * which it may be forgotten. Not thread-safe: {@link NonceMemory} guards it with its lock.
 *
 * <p>Layout: one open-addressing table with linear probing, each slot a {@code long} fingerprint
 * (0 = empty) and an {@code int} expiry second (relative to the second the table was made): 12 bytes
 * a slot, outside the Java heap. Off the heap because the table is the largest thing the agent holds:
 * on the heap, a rebuild to the full size needed the old and the new table in the old generation at
 * once (54 MB of the image's 96 MiB heap, whose old generation is 64 MiB: peerbench found it 99 % full
 * at that moment), and the replaced table stayed there, counted in the RSS, until a full collection.
 * Here a rebuild frees the table it replaces as soon as it is done ({@link #close} frees the last one;
 * a table dropped without it, as tests do, is freed by a cleaner once unreachable).
 * It starts at {@value #INITIAL_SLOTS} slots (48 KiB) and is rebuilt, holding only its live
 * entries, whenever three quarters of its slots are occupied or fewer than an eighth are live: at
 * twice its live entries (so it grows with the rate and shrinks after a burst), never below the initial size and never above
 * {@link #slotsFor slotsFor(capacity)}, 18 bytes per nonce of capacity; a rebuild whose size would
 * pass half the full size makes the full size at once, so every smaller table is at most half of it (or the
 * initial size, for a capacity under about 5,500).
 * Memory therefore follows the request rate: 100,000 live nonces (about 1,700 req/s over the
 * retention) take 2.4 MB; the default capacity of 2,000,000 at most 36 MB (34.3 MiB) for the table,
 * plus, only while a rebuild runs, the table it replaces (at most 18 MB when growing, 36 MB when
 * shrinking the full table to a small one): never more than 54 MB at once. Nothing else is
 * allocated per admission.
 *
 * <p>Expiry by whole seconds: besides the slots, a ring of {@value #RING} counters holds how many
 * remembered nonces expire in each second (seconds further ahead wait in a small sorted map). When
 * the clock passes a second, its counter is subtracted from the live count at once: that is the
 * "drop the whole bucket" step, O(1) per second however many nonces it held. From then on every slot
 * whose expiry is before {@link #dropped} is dead: lookups skip it, an insertion may reuse it, and a
 * sweep that advances {@value #SWEEP_STEPS} slots per admission empties it physically (backward-shift
 * deletion, so no probe chain is ever broken). Between two visits of the sweep to a slot at most
 * {@code slots / SWEEP_STEPS} admissions happen, so the occupied slots never exceed
 * {@code capacity + slots / 16}: a load of at most 0.73, whatever the request rate.
 *
 * <p>Guarantees: a fingerprint is found until its expiry second has passed ({@code now > expiry},
 * at most one second later than its exact expiry, never earlier); the live count never exceeds the
 * capacity, except for entries reloaded from a journal at start, which are all kept.
 */
final class NonceTable implements AutoCloseable {
    /** Seconds of expiry counters held in the ring, 256: more than any retention plus skew in use. */
    static final int RING = 256;
    /** Slots the sweep advances per admission, 16. */
    static final int SWEEP_STEPS = 16;

    /**
     * Slots of a new table, 4,096 (48 KiB); also the smallest a rebuild makes. Small because the JDK zeroes a
     * new segment in a Java loop, which at start runs in the interpreter: 65,536 slots took 5 to 15 ms of the
     * start's critical path (docs/performance.md, session 31); the table grows with the rate from here.
     */
    static final int INITIAL_SLOTS = 1 << 12;

    /** Outcome of {@link #insert}. */
    enum Result { INSERTED, PRESENT, FULL }

    /** Frees the slots of tables that became unreachable without {@link #close}. */
    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees the slots' arena: one shared arena per table size, since admissions run on many threads (under the lock). */
    private Cleaner.Cleanable freeing;
    private MemorySegment keys;
    private MemorySegment expiries;
    private int slots;
    /** The size of a table at full capacity: it never grows beyond it. */
    private final int maxSlots;
    /** The smallest size a rebuild makes. */
    private final int minSlots;
    private final int capacity;
    private final long baseSecond;
    private final int[] ring = new int[RING];
    private final TreeMap<Long, Integer> far = new TreeMap<>();
    /** Every second before this one has been dropped: an entry expiring before it is dead. */
    private long dropped;
    private int live;
    private int occupied;
    private int cursor;

    /**
     * @param capacity   the most live entries {@link #insert} accepts
     * @param reserve    the most entries the table must hold (at least {@code capacity}; more when a
     *                   journal reloaded more)
     * @param nowSecond  the current epoch second
     */
    NonceTable(int capacity, int reserve, long nowSecond) {
        this(capacity, reserve, nowSecond, INITIAL_SLOTS);
    }

    /**
     * @param capacity     the most live entries {@link #insert} accepts
     * @param reserve      the most entries the table must hold (see above)
     * @param nowSecond    the current epoch second
     * @param initialSlots the size of the new table and the smallest a rebuild makes (tests use a few)
     */
    NonceTable(int capacity, int reserve, long nowSecond, int initialSlots) {
        if (initialSlots < 2) {
            throw new IllegalArgumentException("auth: a nonce table needs at least two slots");
        }
        this.capacity = capacity;
        this.maxSlots = slotsFor(Math.max(capacity, reserve));
        this.minSlots = Math.min(maxSlots, initialSlots);
        allocate(minSlots);
        this.baseSecond = nowSecond;
        this.dropped = nowSecond;
    }

    /**
     * @param entries the most live entries
     * @return the number of slots for that many: 1.5 times, plus 16
     */
    static int slotsFor(int entries) {
        return (int) Math.min(Integer.MAX_VALUE - 8, entries + (long) entries / 2 + 16);
    }

    /** @return the number of slots now */
    int slots() {
        return slots;
    }

    /** @return the number of slots at full capacity, the most the table ever has */
    int maxSlots() {
        return maxSlots;
    }

    /** @return the number of occupied slots, live or dead but not yet swept */
    int occupied() {
        return occupied;
    }

    /** @return the number of live (unexpired) entries */
    int live() {
        return live;
    }

    /**
     * Moves the clock forward: every second before {@code nowSecond} is dropped. A clock that went
     * back changes nothing (nothing is ever un-dropped or dropped early).
     *
     * @param nowSecond the current epoch second
     */
    void advance(long nowSecond) {
        if (nowSecond <= dropped) {
            return;
        }
        long steps = Math.min(nowSecond - dropped, RING);
        for (long s = dropped; s < dropped + steps; s++) {
            int i = (int) (s & (RING - 1));
            live -= ring[i];
            ring[i] = 0;
        }
        if (nowSecond - dropped > RING) {
            // The whole ring was dropped; anything still waiting in the far map before now expired too.
            Map<Long, Integer> passed = far.headMap(nowSecond);
            for (int n : passed.values()) {
                live -= n;
            }
            passed.clear();
        }
        dropped = nowSecond;
        Map<Long, Integer> due = far.headMap(dropped + RING);
        for (Map.Entry<Long, Integer> e : due.entrySet()) {
            ring[(int) (e.getKey() & (RING - 1))] += e.getValue();
        }
        due.clear();
    }

    /**
     * Adds a fingerprint unless it is present and live, or the table holds its capacity of live entries.
     * Also advances the sweep.
     *
     * @param key          the fingerprint
     * @param expirySecond the epoch second after which it may be forgotten; at or after the current second
     * @return what happened
     * @throws IllegalArgumentException if the expiry second is already dropped
     */
    Result insert(long key, long expirySecond) {
        return put(key, expirySecond, false);
    }

    /**
     * Adds a fingerprint reloaded from a journal at start, whatever the capacity. If it is present and
     * live (a nonce written twice: in two segments, or used again after it had expired), the later of
     * the two expiries is kept, so the order of the lines does not matter.
     *
     * @param key          the fingerprint
     * @param expirySecond the epoch second after which it may be forgotten; at or after the current second
     * @throws IllegalArgumentException if the expiry second is already dropped
     */
    void reload(long key, long expirySecond) {
        put(key, expirySecond, true);
    }

    /** {@link #insert}, or with {@code reloading} {@link #reload}: one probe for both. */
    private Result put(long key, long expirySecond, boolean reloading) {
        if (expirySecond < dropped) {
            throw new IllegalArgumentException("auth: a nonce that has already expired cannot be admitted");
        }
        if (slots < maxSlots && occupied >= slots - slots / 4 || slots > minSlots && live < slots / 8) {
            rebuild();
        }
        sweep(SWEEP_STEPS);
        long k = key == 0 ? 1 : key;
        int deadRel = relative(dropped);
        int i = home(k);
        int reusable = -1;
        for (long stored = key(i); stored != 0; stored = key(i)) {
            if (expiry(i) < deadRel) {
                if (reusable < 0) {
                    reusable = i;
                }
            } else if (stored == k) {
                if (reloading && relative(expirySecond) > expiry(i)) {
                    count(baseSecond + expiry(i), -1);
                    count(expirySecond, 1);
                    expiries.setAtIndex(JAVA_INT, i, relative(expirySecond));
                }
                return Result.PRESENT;
            }
            i = next(i);
        }
        if (!reloading && live >= capacity) {
            return Result.FULL;
        }
        int slot = reusable;
        if (slot < 0) {
            if (occupied >= slots - 1) {
                // Cannot happen within the load bound; if it ever did, empty every dead slot and retry.
                sweep(2 * slots);
                return occupied >= slots - 1 ? Result.FULL : put(key, expirySecond, reloading);
            }
            slot = i;
            occupied++;
        }
        keys.setAtIndex(JAVA_LONG, slot, k);
        expiries.setAtIndex(JAVA_INT, slot, relative(expirySecond));
        live++;
        count(expirySecond, 1);
        return Result.INSERTED;
    }

    /**
     * Adds {@code delta} to the number of live entries expiring in {@code second}: in the ring when that
     * second is within it, else in the far map ({@link #advance} moves it into the ring when it comes within).
     */
    private void count(long second, int delta) {
        if (second < dropped + RING) {
            ring[(int) (second & (RING - 1))] += delta;
        } else {
            far.merge(second, delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /**
     * @param expirySecond an expiry epoch second
     * @return whether an entry with this expiry would be live now (its second is not yet dropped)
     */
    boolean accepts(long expirySecond) {
        return expirySecond >= dropped;
    }

    /**
     * @param key the fingerprint
     * @return whether it is present and live
     */
    boolean contains(long key) {
        long k = key == 0 ? 1 : key;
        int deadRel = relative(dropped);
        for (int i = home(k); key(i) != 0; i = next(i)) {
            if (key(i) == k && expiry(i) >= deadRel) {
                return true;
            }
        }
        return false;
    }

    /**
     * Replaces the table by one of twice its live entries (between the initial and the full size)
     * holding only those: dead entries are left behind, probe runs start afresh. The live count and
     * the expiry counters are unchanged, since exactly the live entries move.
     */
    private void rebuild() {
        MemorySegment oldKeys = keys;
        MemorySegment oldExpiries = expiries;
        int oldSlots = slots;
        Cleaner.Cleanable oldFreeing = freeing;
        int deadRel = relative(dropped);
        int size = (int) Math.max(minSlots, Math.min(maxSlots, 2L * live + 16));
        if (size > maxSlots / 2) {
            // Straight to the full size: every smaller table is then at most half of it, so a rebuild
            // never holds more than one and a half full tables at once (the memory budget above).
            size = maxSlots;
        }
        allocate(size);
        occupied = 0;
        cursor = 0;
        for (int j = 0; j < oldSlots; j++) {
            long k = oldKeys.getAtIndex(JAVA_LONG, j);
            int e = oldExpiries.getAtIndex(JAVA_INT, j);
            if (k != 0 && e >= deadRel) {
                int i = home(k);
                while (key(i) != 0) {
                    i = next(i);
                }
                keys.setAtIndex(JAVA_LONG, i, k);
                expiries.setAtIndex(JAVA_INT, i, e);
                occupied++;
            }
        }
        oldFreeing.clean();
    }

    /** Makes the slots of a table of {@code size} slots, all empty (the arena zeroes what it allocates). */
    private void allocate(int size) {
        Arena a = Arena.ofShared();
        MemorySegment k;
        MemorySegment e;
        try {
            k = a.allocate(JAVA_LONG, size);
            e = a.allocate(JAVA_INT, size);
        } catch (RuntimeException | Error failure) {
            a.close(); // nothing changed: a failed rebuild leaves the table as it was
            throw failure;
        }
        keys = k;
        expiries = e;
        slots = size;
        // The action holds the arena only: a cleaner whose action reached this table would never run.
        freeing = CLEANER.register(this, a::close);
    }

    /**
     * Frees the slots now; the table must not be used afterwards (its counts still answer). Idempotent.
     */
    @Override
    public void close() {
        freeing.clean();
    }

    /** @return whether the slots' memory is still allocated (false after {@link #close}) */
    boolean allocated() {
        return keys.scope().isAlive();
    }

    /** @return the current fingerprint slots (tests check that a rebuild frees the ones it replaces) */
    MemorySegment keySlots() {
        return keys;
    }

    /** Empties up to {@code steps} dead slots' worth of the table from the sweep cursor on. */
    private void sweep(int steps) {
        int deadRel = relative(dropped);
        for (int n = 0; n < steps; n++) {
            if (key(cursor) != 0 && expiry(cursor) < deadRel) {
                removeAt(cursor); // the slot now holds a moved entry or nothing: look again
            } else {
                cursor = next(cursor);
            }
        }
    }

    /** Backward-shift deletion: later entries of the probe run move up so that every run stays unbroken. */
    private void removeAt(int slot) {
        int hole = slot;
        int j = slot;
        while (true) {
            j = next(j);
            long k = key(j);
            if (k == 0) {
                break;
            }
            int home = home(k);
            boolean homeInRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!homeInRange) {
                keys.setAtIndex(JAVA_LONG, hole, k);
                expiries.setAtIndex(JAVA_INT, hole, expiry(j));
                hole = j;
            }
        }
        keys.setAtIndex(JAVA_LONG, hole, 0L);
        expiries.setAtIndex(JAVA_INT, hole, 0);
        occupied--;
    }

    private long key(int i) {
        return keys.getAtIndex(JAVA_LONG, i);
    }

    private int expiry(int i) {
        return expiries.getAtIndex(JAVA_INT, i);
    }

    private int relative(long second) {
        return (int) (second - baseSecond);
    }

    private int home(long key) {
        return (int) (((key >>> 32) * slots) >>> 32);
    }

    private int next(int i) {
        return i + 1 == slots ? 0 : i + 1;
    }
}
