package io.dogama.agent.registry.internal;

import io.dogama.agent.core.Ids;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import io.dogama.agent.registry.RegistryFullException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.openhft.chronicle.hash.ChronicleHashCorruption;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * The registry on one persisted {@code ChronicleMap<String, byte[]>}. Values are {@link RecordCodec}
 * bytes, so Chronicle needs no generated value class for this map shape.
 *
 * <p>Files in the data directory: {@value #MAP_FILE} (the map), {@value #KEY_FILE} (the MAC key),
 * {@value #LOCK_FILE} (one process at a time; Chronicle's recovery needs exclusive access) and
 * {@value #CLEAN_FILE} (present only between a clean close and the next open: without it the map is
 * opened with Chronicle's recovery). Every one of them, and every temporary file, is created with mode
 * 0600 ({@link PrivateFiles}).
 */
public final class ChronicleRegistry implements Registry {
    /** The map file. */
    public static final String MAP_FILE = "registry.dat";
    /** The MAC key file. */
    public static final String KEY_FILE = "registry.key";
    /** The process lock file. */
    public static final String LOCK_FILE = "registry.lock";
    /** The clean-shutdown marker. */
    public static final String CLEAN_FILE = "registry.clean";
    /** The map file as it was before a recovery that dropped damaged entries, kept for the operator. */
    public static final String PRE_RECOVERY_FILE = "registry.dat.pre-recovery";
    /** What a dropped entry is replaced with: not a record, so it reads as {@code Tampered}. */
    private static final byte[] TOMBSTONE = {'D', 'R', 0, 0};
    /** The key of the authenticated sentinel entry; not a valid instance ID, so it never collides. */
    static final String META_KEY = "\u0000meta";
    /** Average key size the map is laid out for: instance IDs are 3 to 63 characters. */
    static final int AVERAGE_KEY_BYTES = 24;
    /** Average value size the map is laid out for: a record with one plan of a few KiB. */
    static final int AVERAGE_VALUE_BYTES = 4 * 1024;
    /** Allocation unit of the map. */
    static final int CHUNK_BYTES = 1024;
    /** Target entries per segment (a segment is Chronicle's unit of locking and of a tier's size). */
    static final int ENTRIES_PER_SEGMENT = 128;
    /** Chronicle's per-entry bytes besides key and value (size prefixes, checksum), rounded up. */
    static final int ENTRY_OVERHEAD_BYTES = 32;
    /** Lock stripes for the per-instance locks. */
    static final int LOCK_STRIPES = 64;
    /** Spare entries over the instance limit (the sentinel, and room for an administrator raising it). */
    static final int ENTRY_HEADROOM = 16;
    /**
     * How far Chronicle may grow the map past its initial layout (extra segment tiers), e.g. for large
     * records during replaces or a raised instance limit; Chronicle caps it at 1000.
     */
    static final double MAX_BLOAT_FACTOR = 20.0;
    /** Smallest plausible map file: anything shorter is not a Chronicle map (it would be silently re-created). */
    static final long MIN_MAP_FILE_BYTES = 4096;

    private static final System.Logger LOG = System.getLogger(ChronicleRegistry.class.getName());

    private final ChronicleMap<String, byte[]> map;
    private final RecordMac mac;
    private final int maxInstances;
    private final Path dataDir;
    private final FileChannel lockChannel;
    private final FileLock processLock;
    /**
     * The map's file, for forcing what Chronicle wrote through its shared mapping to the disk; opened again when
     * an interrupt closed it ({@link #force}).
     */
    private volatile FileChannel mapChannel;
    private final Object reopening = new Object();
    /** Serializes inserts so that the count check and the insert are one step. */
    private final ReentrantLock insertLock = new ReentrantLock();
    /**
     * One walk over the map at a time. Chronicle's iteration takes each segment's update lock, which it
     * waits for by spinning: concurrent listings (peerbench's 32 connections) spent a third of the agent's
     * CPU spinning there. Waiting here parks instead; a walk of the registry's few hundred keys is short.
     */
    private final ReentrantLock walk = new ReentrantLock();
    /** Readers: every operation; writer: close, so that no operation runs on a closing map. */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private boolean closed;
    /** Instances already logged as tampered (bounded by the map's size). */
    private final Set<String> reportedTampered = ConcurrentHashMap.newKeySet();
    /** Per-instance locks: a compare-and-set spans an instance's two slots. */
    private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
    /**
     * Records already authenticated and decoded, by map key, with the exact bytes they came from. Every read
     * still takes the stored bytes from the map; only bytes identical to those remembered skip the MAC and the
     * parser, whose answer for the same key, bytes and MAC key cannot differ. A changed byte (a write of
     * ours, or tampering) is authenticated and decoded afresh. Bounded by {@link #MEMO_ENTRIES}.
     */
    private final Map<String, Memo> decoded = new ConcurrentHashMap<>();
    /** The last listing remembered with its walk; see {@link Listed}. */
    private volatile Listed listed;
    /** A listing's read buffers, one per value length; guarded by {@link #walk}. */
    private final Map<Integer, byte[]> scratch = new HashMap<>();
    /** Stored instances (tombstones and forged keys included), for the limit. */
    private final AtomicInteger instances;

    private ChronicleRegistry(ChronicleMap<String, byte[]> map, RecordMac mac, int maxInstances, Path dataDir,
            FileChannel lockChannel, FileLock processLock, FileChannel mapChannel) {
        this.map = map;
        this.mapChannel = mapChannel;
        this.mac = mac;
        this.maxInstances = maxInstances;
        this.dataDir = dataDir;
        this.lockChannel = lockChannel;
        this.processLock = processLock;
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new ReentrantLock();
        }
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (String key : map.keySet()) {
            if (!META_KEY.equals(key)) {
                ids.add(Slots.slotOf(key) < 0 ? key : Slots.instanceOf(key));
            }
        }
        this.instances = new AtomicInteger(ids.size());
    }

    /**
     * Implements {@link Registry#open}.
     *
     * @param dataDir      data directory
     * @param maxInstances instance limit
     * @return the open registry
     * @throws RegistryException see {@link Registry#open}
     */
    public static Registry open(Path dataDir, int maxInstances) throws RegistryException {
        Objects.requireNonNull(dataDir, "dataDir");
        if (maxInstances < MIN_INSTANCES || maxInstances > MAX_INSTANCES) {
            throw new IllegalArgumentException("registry: maxInstances must be in [" + MIN_INSTANCES + ", "
                    + MAX_INSTANCES + "]");
        }
        ChronicleStartup.prepare();
        if (!Files.isDirectory(dataDir, LinkOption.NOFOLLOW_LINKS)) {
            throw new RegistryException("data directory does not exist or is not a directory");
        }
        Path dir = dataDir.toAbsolutePath();
        FileChannel lockChannel = null;
        FileLock lock;
        try {
            lockChannel = PrivateFiles.openOrCreate(dir.resolve(LOCK_FILE));
            lock = lockChannel.tryLock();
        } catch (IOException | OverlappingFileLockException e) {
            closeQuietly(lockChannel);
            throw new RegistryException("the registry is already open (lock file " + LOCK_FILE + ")", e);
        }
        if (lock == null) {
            closeQuietly(lockChannel);
            throw new RegistryException("the registry is already open in another process (lock file " + LOCK_FILE
                    + ")");
        }
        try {
            return openLocked(dir, maxInstances, lockChannel, lock);
        } catch (RegistryException | RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private static Registry openLocked(Path dir, int maxInstances, FileChannel lockChannel, FileLock lock)
            throws RegistryException {
        Path mapFile = dir.resolve(MAP_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        Path cleanFile = dir.resolve(CLEAN_FILE);
        RecordMac mac;
        ChronicleMap<String, byte[]> map;
        String how;
        if (Files.exists(mapFile, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
                throw new RegistryException("key missing while records exist: " + KEY_FILE + " is absent but "
                        + MAP_FILE + " exists; restore the key, the registry is never re-created over existing records");
            }
            mac = new RecordMac(KeyFile.load(keyFile));
            checkMapFile(mapFile);
            boolean clean = Files.exists(cleanFile, LinkOption.NOFOLLOW_LINKS);
            map = openMap(mapFile, maxInstances, !clean);
            how = clean ? "" : " after recovery";
        } else {
            byte[] key;
            if (Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
                key = KeyFile.load(keyFile);
                LOG.log(Level.INFO, "registry: no " + MAP_FILE + " yet; creating it with the existing key");
            } else {
                key = KeyFile.create(keyFile);
                LOG.log(Level.INFO, "registry: generated a new registry key");
            }
            mac = new RecordMac(key);
            map = createNew(dir, maxInstances, mac);
            how = " (new)";
        }
        FileChannel mapChannel = null;
        try {
            // The map is open, so Chronicle has registered its shutdown hook (ChronicleStartup says why it goes).
            ChronicleStartup.dropShutdownHooks();
            verifyMap(map, mac);
            mapChannel = FileChannel.open(mapFile, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
            mapChannel.force(false); // whatever a recovery or the check wrote
            // From here on a crash must lead to recovery at the next start.
            Fsync.delete(cleanFile);
        } catch (RegistryException | IOException | RuntimeException e) {
            map.close();
            closeQuietly(mapChannel);
            if (e instanceof RegistryException re) {
                throw re;
            }
            throw new RegistryException("cannot open the registry", e);
        }
        ChronicleRegistry registry = new ChronicleRegistry(map, mac, maxInstances, dir, lockChannel, lock, mapChannel);
        LOG.log(Level.INFO, "registry: opened with " + registry.instances.get() + " instance(s)" + how);
        return registry;
    }

    private static void checkMapFile(Path mapFile) throws RegistryException {
        try {
            if (!Files.isRegularFile(mapFile, LinkOption.NOFOLLOW_LINKS)) {
                throw new RegistryException(MAP_FILE + " is not a regular file");
            }
            if (Files.size(mapFile) < MIN_MAP_FILE_BYTES) {
                throw new RegistryException(MAP_FILE + " is truncated or corrupt");
            }
        } catch (IOException e) {
            throw new RegistryException(MAP_FILE + " is unreadable", e);
        }
    }

    /** The steps of {@link #createNew}, named for the crash tests' seam. */
    enum CreationStep {
        /** The map is laid out in the temporary file. */
        LAID_OUT,
        /** The sentinel is written (to the mapping). */
        SENTINEL_WRITTEN,
        /** The temporary file is forced to disk. */
        FORCED,
        /** The temporary file is renamed to the map file's name and the directory forced. */
        RENAMED
    }

    /**
     * Test seam: called after each {@link CreationStep} (the crash tests halt the JVM there). The agent never
     * sets it.
     */
    static volatile Consumer<CreationStep> afterCreationStep = step -> {
    };

    /** Test seam: called after each write was forced to the disk. The agent never sets it. */
    static volatile Runnable afterForce = () -> {
    };

    /**
     * Forces what a write put into the shared mapping to the disk before the write returns: the lifecycle
     * persists each intent before the engine acts on it (SPEC section 10), and the engine keeps its own
     * containers on disk, so a write left to the kernel's write-back (about 30 s) could be lost with a power
     * cut while its container survives, untracked, its bind sources and ports claimed by no record.
     */
    private void force(String op) throws RegistryException {
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                FileChannel ch = mapChannel;
                try {
                    ch.force(false);
                    break;
                } catch (ClosedChannelException e) {
                    // An interrupt (the server's forced stop, after its grace period) closes an interruptible
                    // channel for every thread that uses it: the file is opened again, once, with the interrupt
                    // held back until the force is done, so that a write that is in the map is also on disk.
                    interrupted |= Thread.interrupted();
                    if (attempt > 0 || closed) {
                        throw new RegistryException(op + ": the write could not be forced to the disk", e);
                    }
                    reopen(ch);
                }
            }
        } catch (IOException e) {
            throw new RegistryException(op + ": the write could not be forced to the disk", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        afterForce.run();
    }

    private void reopen(FileChannel closedOne) throws IOException {
        synchronized (reopening) {
            if (mapChannel == closedOne) {
                mapChannel = FileChannel.open(dataDir.resolve(MAP_FILE), StandardOpenOption.READ,
                        LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    /**
     * Creates the map under a temporary name, writes the sentinel, forces the file and only then renames it
     * into place, and returns it open: a crash at any point leaves either no {@value #MAP_FILE} (the
     * temporary file is never taken for a registry and is replaced at the next start) or a complete one
     * with its sentinel on disk. The map stays open across the rename (the mapping and Chronicle's channel
     * follow the file, not its name), so a new registry is laid out and opened once, not created, closed
     * and opened again. It is open without a clean marker from the start, like any opened registry: a crash
     * from here on leads to recovery at the next start.
     */
    private static ChronicleMap<String, byte[]> createNew(Path dir, int maxInstances, RecordMac mac)
            throws RegistryException {
        Path tmp = dir.resolve(MAP_FILE + ".tmp");
        ChronicleMap<String, byte[]> fresh = null;
        try {
            Files.deleteIfExists(tmp);
            // Created here with mode 0600: Chronicle lays a new map out in an existing empty file, and a file
            // it created itself would get the umask's mode.
            PrivateFiles.createEmpty(tmp);
            fresh = builder(maxInstances).createPersistedTo(tmp.toFile());
            reserve(tmp);
            afterCreationStep.accept(CreationStep.LAID_OUT);
            fresh.put(META_KEY, RecordCodec.encodeMeta(mac, META_KEY));
            afterCreationStep.accept(CreationStep.SENTINEL_WRITTEN);
            // fsync writes back the pages dirtied through Chronicle's shared mapping of the same file.
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ch.force(true);
            }
            afterCreationStep.accept(CreationStep.FORCED);
            Files.move(tmp, dir.resolve(MAP_FILE), StandardCopyOption.ATOMIC_MOVE);
            Fsync.directory(dir);
            afterCreationStep.accept(CreationStep.RENAMED);
            return fresh;
        } catch (IOException | RuntimeException e) {
            if (fresh != null) {
                fresh.close();
            }
            throw new RegistryException("cannot create " + MAP_FILE, e);
        }
    }

    /** The page size the reservation steps by; a smaller real page only means more steps. */
    private static final int PAGE_BYTES = 4096;

    /**
     * Gives every page of the map's file its blocks now. Chronicle lays the file out sparse and writes
     * through a shared mapping: a store into a page the file system cannot give (full data directory)
     * is a SIGBUS in the middle of a write. Reserved pages never need a new block. Writing a zero
     * only where the byte is zero changes no content.
     *
     * @param file the map's file (open by nobody else but this process, which is not writing yet)
     * @throws IOException if the file system cannot give the blocks
     */
    static void reserve(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            ByteBuffer one = ByteBuffer.allocate(1);
            for (long pos = 0; pos < size; pos += PAGE_BYTES) {
                one.clear();
                if (ch.read(one, pos) == 1 && one.get(0) == 0) {
                    ch.write(ByteBuffer.wrap(new byte[1]), pos);
                }
            }
        }
    }

    private static ChronicleMap<String, byte[]> openMap(Path mapFile, int maxInstances, boolean recover)
            throws RegistryException {
        if (recover) {
            recover(mapFile, maxInstances);
        }
        ChronicleMap<String, byte[]> m;
        try {
            m = builder(maxInstances).createPersistedTo(mapFile.toFile());
        } catch (IOException | RuntimeException e) {
            throw new RegistryException(MAP_FILE + " is corrupt or unreadable", e);
        }
        try {
            reserve(mapFile);
        } catch (IOException e) {
            m.close();
            throw new RegistryException("no space to reserve " + MAP_FILE, e);
        }
        return m;
    }

    /**
     * Runs Chronicle's recovery on a copy of the map and then puts the copy in place. Chronicle repairs
     * counters, locks and free lists itself, but it DROPS entries it finds damaged (a flipped byte in the
     * file, or a write torn by the kill itself). A dropped instance must not silently vanish: every dropped
     * entry whose key Chronicle names gets a tombstone that reads as {@code Tampered} and the original file
     * is kept as {@value #PRE_RECOVERY_FILE} for the operator; if an entry cannot be named, the start fails
     * and {@value #MAP_FILE} is left as it was (so every later start fails the same way).
     */
    private static void recover(Path mapFile, int maxInstances) throws RegistryException {
        Path dir = mapFile.getParent();
        Path work = dir.resolve(MAP_FILE + ".recovering");
        LOG.log(Level.WARNING, "registry: not closed cleanly; recovering " + MAP_FILE);
        RecoveryReport report = new RecoveryReport();
        try {
            PrivateFiles.copy(mapFile, work);
            ChronicleMap<String, byte[]> m;
            try {
                // false: never rewrite a damaged header from this build's configuration; that is an error.
                m = builder(maxInstances).recoverPersistedTo(work.toFile(), false, report);
            } catch (IOException | RuntimeException e) {
                throw new RegistryException(MAP_FILE + " is corrupt: recovery failed", e);
            }
            int tombstones = 0;
            try {
                for (String key : report.droppedKeys) {
                    // A dropped slot whose sibling survived is the write the crash cut short (or, if someone
                    // damaged the newer copy and crashed the agent, a roll-back by one version, no worse than
                    // the replay of an old file, which no MAC can prevent). Without a sibling, the instance
                    // must read as tampered rather than vanish.
                    int slot = Slots.slotOf(key);
                    String sibling = slot < 0 ? null : Slots.instanceOf(key) + Slots.SUFFIX[1 - slot];
                    if (!m.containsKey(key) && (sibling == null || !m.containsKey(sibling))) {
                        m.put(key, TOMBSTONE.clone());
                        tombstones++;
                    }
                }
            } finally {
                m.close();
            }
            if (report.repaired > 0) {
                LOG.log(Level.INFO, "registry: recovery repaired " + report.repaired + " bookkeeping field(s)");
            }
            if (report.unnamed() > 0) {
                // An entry we cannot name cannot be tombstoned: going on would silently forget an instance.
                throw new RegistryException(MAP_FILE + " is corrupt: recovery would drop " + report.unnamed()
                        + " damaged entr(y/ies) it cannot attribute to an instance; the file is left untouched");
            }
            if (report.dropped > 0) {
                PrivateFiles.copy(mapFile, dir.resolve(PRE_RECOVERY_FILE));
                LOG.log(Level.ERROR, "registry: recovery dropped " + report.dropped + " damaged entr(y/ies); "
                        + tombstones + " instance(s) now read as tampered, the others kept their previous version;"
                        + " the file before recovery is kept as " + PRE_RECOVERY_FILE);
            }
            Files.move(work, mapFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Fsync.directory(dir);
        } catch (IOException e) {
            throw new RegistryException("cannot recover " + MAP_FILE, e);
        } finally {
            try {
                Files.deleteIfExists(work);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "registry: could not delete the recovery work file", e);
            }
        }
    }

    /**
     * Sorts Chronicle's corruption reports into repaired bookkeeping (expected after a kill: a lock word,
     * an entry counter or the free-chunk hint left mid-update) and everything else, which is taken as a
     * dropped entry (or a structure whose repair may drop entries). Chronicle's messages
     * embed keys and values, so only categories are logged; the keys are taken from the fixed parts of
     * Chronicle's messages ({@code "key: <key>,"}, {@code "entry key: <key>"}, {@code "with key <key>,"},
     * {@code "Wrong value size: <key>,"}); a test pins the checksum case.
     */
    static final class RecoveryReport implements ChronicleHashCorruption.Listener {
        /**
         * Reports of Chronicle 2026.1 that lose no entry: locks and counters a killed process left mid-update,
         * and a key found twice (a relocation cut short; one copy is kept).
         */
        private static final List<String> BOOKKEEPING = List.of(
                "lock of segment ", "global mutable state lock", "Wrong number of entries counter",
                "wrong lowest free chunk", "wrong deleted counter", "wrong first free tier index",
                "wrong number of actual tiers in use", "size-prefixed blob readiness bit",
                "entries with duplicate key ", "Entries with duplicate keys within a tier");
        private static final String ID = "([a-z0-9][a-z0-9-]{1,61}[a-z0-9]#[01])";
        /** The exact shapes in which Chronicle 2026.1's recovery messages name an entry's key. */
        private static final List<Pattern> KEY_FORMS = List.of(
                Pattern.compile("(?:^|, )key: " + ID + ", value: "),
                Pattern.compile("entry key: " + ID + "(?:, entry pos: |$)"),
                Pattern.compile("with key " + ID + ", first value is "),
                Pattern.compile("^Wrong value size: " + ID + ", key: "));
        int repaired;
        int dropped;
        private int unnamed;
        final Set<String> droppedKeys = new TreeSet<>();

        @Override
        public void onCorruption(ChronicleHashCorruption corruption) {
            String message = String.valueOf(corruption.message());
            if (BOOKKEEPING.stream().anyMatch(message::contains)) {
                repaired++;
                return;
            }
            dropped++;
            LOG.log(Level.WARNING, "registry: recovery found a damaged entry or structure in segment "
                    + corruption.segmentIndex() + " (" + category(message) + ")");
            boolean named = false;
            for (Pattern form : KEY_FORMS) {
                Matcher m = form.matcher(message);
                if (m.find() && Slots.slotOf(m.group(1)) >= 0) {
                    droppedKeys.add(m.group(1));
                    named = true;
                    break;
                }
            }
            if (!named) {
                unnamed++;
            }
        }

        /** The fixed leading words of a Chronicle message, before any key, value or number. */
        static String category(String message) {
            int end = 0;
            while (end < message.length() && end < 60
                    && (Character.isLetter(message.charAt(end)) || message.charAt(end) == ' ')) {
                end++;
            }
            return message.substring(0, end).trim();
        }

        int unnamed() {
            return unnamed;
        }
    }

    private static void verifyMap(ChronicleMap<String, byte[]> map, RecordMac mac) throws RegistryException {
        if (map.keyClass() != String.class || map.valueClass() != byte[].class) {
            throw new RegistryException(MAP_FILE + " is not a registry map");
        }
        byte[] meta = map.get(META_KEY);
        if (meta == null) {
            throw new RegistryException(MAP_FILE + " has no registry sentinel: corrupt or not a registry");
        }
        if (!RecordCodec.verifyMeta(mac, META_KEY, meta)) {
            throw new RegistryException("registry key does not match the registry (" + KEY_FILE + " belongs to "
                    + "another registry, or the sentinel was altered)");
        }
    }

    /**
     * The map layout for {@code maxInstances}, explicit rather than derived from averages, so that the
     * largest record ({@link RecordCodec#MAX_ENCODED_BYTES}: two plans at their limit, during a replace)
     * always fits in one segment tier: entries of {@value #CHUNK_BYTES}-byte chunks, about
     * {@value #ENTRIES_PER_SEGMENT} entries per segment, each tier able to hold at least two maximal records.
     * An existing file keeps the layout it was created with (Chronicle reads it from the file header).
     */
    static ChronicleMapBuilder<String, byte[]> builder(int maxInstances) {
        // Two slots per instance (see Slots), the sentinel, and headroom.
        long entries = 2L * maxInstances + 1 + ENTRY_HEADROOM;
        int segments = Integer.highestOneBit((int) Math.max(1, (entries + ENTRIES_PER_SEGMENT - 1) / ENTRIES_PER_SEGMENT));
        if (segments * (long) ENTRIES_PER_SEGMENT < entries) {
            segments *= 2;
        }
        long perSegment = (entries + segments - 1) / segments;
        int maxChunks = (RecordCodec.MAX_ENCODED_BYTES + AVERAGE_KEY_BYTES + ENTRY_OVERHEAD_BYTES + CHUNK_BYTES - 1)
                / CHUNK_BYTES;
        long averageChunks = (AVERAGE_VALUE_BYTES + AVERAGE_KEY_BYTES + ENTRY_OVERHEAD_BYTES + CHUNK_BYTES - 1)
                / CHUNK_BYTES;
        long chunksPerTier = Math.max(perSegment * averageChunks * 2, 2L * maxChunks);
        ChronicleStartup.prepare();
        return ChronicleMap.of(String.class, byte[].class)
                .name("dogama-registry")
                .entries(entries)
                .averageKeySize(AVERAGE_KEY_BYTES)
                .averageValueSize(AVERAGE_VALUE_BYTES)
                .actualSegments(segments)
                .entriesPerSegment(perSegment)
                .actualChunkSize(CHUNK_BYTES)
                .actualChunksPerSegmentTier(chunksPerTier)
                .maxChunksPerEntry(maxChunks)
                .maxBloatFactor(MAX_BLOAT_FACTOR)
                .checksumEntries(true);
    }

    @Override
    public int maxInstances() {
        return maxInstances;
    }

    @Override
    public Lookup get(String instanceId) throws RegistryException {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!Ids.isId(instanceId)) {
            return new Lookup.Absent(instanceId);
        }
        lifecycle.readLock().lock();
        ReentrantLock stripe = stripe(instanceId);
        stripe.lock();
        try {
            checkOpen();
            return read(instanceId);
        } catch (RuntimeException e) {
            throw failure("read", e);
        } finally {
            stripe.unlock();
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public List<Lookup> all() throws RegistryException {
        List<String> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>(); // null for a forged key
        lifecycle.readLock().lock();
        try {
            checkOpen();
            walk.lock();
            try {
                map.forEachEntry(e -> {
                    String key = e.key().getUsing(null);
                    if (!META_KEY.equals(key)) {
                        keys.add(key);
                        values.add(Slots.slotOf(key) < 0 ? null : current(key, e.value()));
                    }
                });
            } finally {
                walk.unlock();
            }
        } catch (RuntimeException e) {
            throw failure("read", e);
        } finally {
            lifecycle.readLock().unlock();
        }
        Listed last = listed;
        if (last != null && last.sameWalk(keys, values)) {
            return last.lookups();
        }
        Map<String, byte[][]> slots = new TreeMap<>();
        List<String> forged = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            int slot = Slots.slotOf(key);
            if (slot < 0) {
                forged.add(key);
            } else {
                slots.computeIfAbsent(Slots.instanceOf(key), k -> new byte[2][])[slot] = values.get(i);
            }
        }
        // Iteration is weakly consistent: an instance written meanwhile may show slots of two moments.
        // Such an instance is read again under its lock rather than misreported as tampered; that answer
        // does not follow from this walk alone, so it is not remembered.
        boolean readAgain = false;
        List<Lookup> out = new ArrayList<>(slots.size() + forged.size());
        for (Map.Entry<String, byte[][]> e : slots.entrySet()) {
            Lookup l = evaluate(e.getKey(), e.getValue()[0], e.getValue()[1], false);
            if (l instanceof Lookup.Tampered) {
                readAgain = true;
                l = get(e.getKey());
            }
            out.add(l);
        }
        for (String key : forged) {
            out.add(new Lookup.Tampered(key));
        }
        out.removeIf(l -> l instanceof Lookup.Absent);
        out.sort(Comparator.comparing(Lookup::instanceId));
        List<Lookup> lookups = List.copyOf(out);
        if (!readAgain) {
            listed = new Listed(List.copyOf(keys), values.toArray(byte[][]::new), lookups);
        }
        return lookups;
    }

    @Override
    public CasResult insert(InstanceRecord record) throws RegistryException {
        String id = record.instanceId();
        byte[] bytes = RecordCodec.encodeRecord(mac, Slots.key(id, 1), record, 1);
        lifecycle.readLock().lock();
        ReentrantLock stripe = stripe(id);
        // insertLock first, then the stripe: removes take only the stripe, so the order never inverts.
        insertLock.lock();
        stripe.lock();
        try {
            checkOpen();
            switch (read(id)) {
                case Lookup.Found f -> {
                    return new CasResult.Conflict(id, f.generation());
                }
                case Lookup.Tampered t -> {
                    return new CasResult.Tampered(id);
                }
                case Lookup.Absent a -> {
                    // Only inserts add instances and they are serialized here.
                    if (instances.get() >= maxInstances) {
                        return new CasResult.Full(id, maxInstances);
                    }
                }
            }
            map.put(Slots.key(id, 1), bytes);
            instances.incrementAndGet();
            force("insert");
            return new CasResult.Stored(record, 1);
        } catch (RuntimeException e) {
            throw failure("insert", e);
        } catch (InternalError e) {
            // A store to Chronicle's mapping that needed a page the file system could not give (SIGBUS,
            // which the JVM turns into this error): the write went to the other slot, the current version
            // is intact.
            throw new RegistryFullException("insert: no space left for the registry file", e);
        } finally {
            stripe.unlock();
            insertLock.unlock();
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public CasResult replace(long expectedGeneration, InstanceRecord next) throws RegistryException {
        String id = next.instanceId();
        byte[] bytes = expectedGeneration >= 1 && expectedGeneration < Long.MAX_VALUE
                ? RecordCodec.encodeRecord(mac, Slots.key(id, expectedGeneration + 1), next, expectedGeneration + 1)
                : null;
        lifecycle.readLock().lock();
        ReentrantLock stripe = stripe(id);
        stripe.lock();
        try {
            checkOpen();
            CasResult refused = refusal(id, read(id), expectedGeneration);
            if (refused != null) {
                return refused;
            }
            // The new version goes to the other slot, over the version before the current one: a write cut
            // short by a crash can only damage that stale copy, never the current one.
            map.put(Slots.key(id, expectedGeneration + 1), bytes);
            force("replace");
            return new CasResult.Stored(next, expectedGeneration + 1);
        } catch (RuntimeException e) {
            throw failure("replace", e);
        } catch (InternalError e) {
            // A store to Chronicle's mapping that needed a page the file system could not give (SIGBUS,
            // which the JVM turns into this error): the write went to the other slot, the current version
            // is intact.
            throw new RegistryFullException("replace: no space left for the registry file", e);
        } finally {
            stripe.unlock();
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public CasResult remove(String instanceId, long expectedGeneration) throws RegistryException {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!Ids.isId(instanceId)) {
            return new CasResult.Absent(instanceId);
        }
        lifecycle.readLock().lock();
        ReentrantLock stripe = stripe(instanceId);
        stripe.lock();
        try {
            checkOpen();
            CasResult refused = refusal(instanceId, read(instanceId), expectedGeneration);
            if (refused != null) {
                return refused;
            }
            // Stale copy first, and on the disk before the current one goes: cut short between the two (a kill, or
            // a power cut, after which the kernel may have written back either page or both), the current
            // version is still there (the remove did not happen) rather than the stale one resurfacing.
            map.remove(Slots.key(instanceId, expectedGeneration - 1));
            force("remove");
            map.remove(Slots.key(instanceId, expectedGeneration));
            decoded.remove(Slots.key(instanceId, 0));
            decoded.remove(Slots.key(instanceId, 1));
            instances.decrementAndGet();
            force("remove");
            return new CasResult.Removed(instanceId);
        } catch (RuntimeException e) {
            throw failure("remove", e);
        } catch (InternalError e) {
            // A store to Chronicle's mapping that needed a page the file system could not give (SIGBUS,
            // which the JVM turns into this error): the write went to the other slot, the current version
            // is intact.
            throw new RegistryFullException("remove: no space left for the registry file", e);
        } finally {
            stripe.unlock();
            lifecycle.readLock().unlock();
        }
    }

    /** @return null if {@code current} verified with the expected generation, else the refusal */
    private static CasResult refusal(String id, Lookup current, long expectedGeneration) {
        return switch (current) {
            case Lookup.Absent a -> new CasResult.Absent(id);
            case Lookup.Tampered t -> new CasResult.Tampered(id);
            case Lookup.Found f -> f.generation() == expectedGeneration ? null
                    : new CasResult.Conflict(id, f.generation());
        };
    }

    private ReentrantLock stripe(String id) {
        return stripes[(id.hashCode() & Integer.MAX_VALUE) % stripes.length];
    }

    /** Reads both slots of an instance; the caller holds its stripe lock. */
    private Lookup read(String id) {
        return evaluate(id, map.get(Slots.key(id, 0)), map.get(Slots.key(id, 1)), true);
    }

    /** Two slots per instance for a registry of 1024 instances; a larger one decodes the rest on every read. */
    static final int MEMO_ENTRIES = 2048;

    private record Memo(byte[] bytes, RecordCodec.Decoded record) {
    }

    /**
     * A walk and the listing made from it. A listing is a function of the walk's keys and values alone
     * (the read-again case aside, which is never remembered), so a walk that met the same keys in the same
     * order with, for every one, the very array {@link #current} returns for bytes equal to a remembered
     * record, has the same listing. Any other walk, a changed byte included, makes the listing afresh.
     */
    private record Listed(List<String> keys, byte[][] values, List<Lookup> lookups) {
        boolean sameWalk(List<String> walkKeys, List<byte[]> walkValues) {
            if (!keys.equals(walkKeys)) {
                return false;
            }
            for (int i = 0; i < values.length; i++) {
                // The same array, not equal content: only a remembered record's bytes are shared this way
                // (a forged key's null stays null: the same key is forged again).
                if (walkValues.get(i) != values[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * An entry's value: the remembered bytes when the stored ones equal them, else the stored ones.
     * The comparison reads the value into a buffer kept for its length, so a listing of unchanged
     * records allocates no copy of them (a quarter of a listing's allocation before). Any difference,
     * tampering included, gives the stored bytes, which {@link #decode} then authenticates afresh.
     * Called only during the walk, under {@link #walk}, which guards {@link #scratch}.
     */
    private byte[] current(String mapKey, Data<byte[]> value) {
        Memo memo = decoded.get(mapKey);
        if (memo == null || value.size() != memo.bytes().length) {
            return value.getUsing(null);
        }
        byte[] buffer = scratch.get(memo.bytes().length);
        if (buffer == null && scratch.size() < MEMO_ENTRIES) {
            buffer = new byte[memo.bytes().length];
            scratch.put(buffer.length, buffer);
        }
        // Chronicle reads into the given array when its length is the value's, else into a new one.
        byte[] read = value.getUsing(buffer);
        return Arrays.equals(read, memo.bytes()) ? memo.bytes() : read == buffer ? read.clone() : read;
    }

    private RecordCodec.Decoded decode(String mapKey, String id, byte[] bytes)
            throws RecordCodec.MalformedRecordException {
        Memo memo = decoded.get(mapKey);
        if (memo != null && Arrays.equals(memo.bytes(), bytes)) {
            return memo.record();
        }
        RecordCodec.Decoded d = RecordCodec.decodeRecord(mac, mapKey, id, bytes);
        if (memo != null || decoded.size() < MEMO_ENTRIES) {
            decoded.put(mapKey, new Memo(bytes.clone(), d));
        }
        return d;
    }

    /**
     * The current version of an instance from its two slots: the higher generation, provided every
     * present slot verifies, sits in the slot of its generation's parity, and the two generations are
     * consecutive (anything else is a splice of copies from different times: tampered).
     */
    private Lookup evaluate(String id, byte[] slot0, byte[] slot1, boolean report) {
        if (slot0 == null && slot1 == null) {
            return new Lookup.Absent(id);
        }
        RecordCodec.Decoded d0 = null;
        RecordCodec.Decoded d1 = null;
        try {
            if (slot0 != null) {
                d0 = decode(Slots.key(id, 0), id, slot0);
                RecordCodec.require(d0.generation() % 2 == 0, "generation in the wrong slot");
            }
            if (slot1 != null) {
                d1 = decode(Slots.key(id, 1), id, slot1);
                RecordCodec.require(d1.generation() % 2 == 1, "generation in the wrong slot");
            }
            if (d0 != null && d1 != null) {
                RecordCodec.require(Math.abs(d0.generation() - d1.generation()) == 1, "slots out of step");
            }
        } catch (RecordCodec.MalformedRecordException e) {
            if (report && reportedTampered.add(id)) {
                // Once per instance and process: listings would repeat it on every call. Fixed text only.
                LOG.log(Level.WARNING, "registry: a record failed authentication or parsing (" + e.getMessage()
                        + "); it is reported as tampered and never acted on");
            }
            return new Lookup.Tampered(id);
        }
        RecordCodec.Decoded current = d0 == null ? d1 : d1 == null ? d0
                : d0.generation() > d1.generation() ? d0 : d1;
        return new Lookup.Found(current.record(), current.generation());
    }

    private void checkOpen() throws RegistryException {
        if (closed) {
            throw new RegistryException("the registry is closed");
        }
    }

    private static RegistryException failure(String op, RuntimeException e) {
        return new RegistryException(op + " failed", e);
    }

    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                map.close();
                Fsync.touch(dataDir.resolve(CLEAN_FILE));
            } catch (IOException | RuntimeException e) {
                // Without the marker the next start recovers, which is safe; say so and go on releasing the lock.
                LOG.log(Level.WARNING, "registry: could not mark a clean close; the next start will recover", e);
            }
            closeQuietly(mapChannel);
            try {
                processLock.release();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "registry: could not release the process lock", e);
            }
            closeQuietly(lockChannel);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "registry: closing the lock file failed", e);
            }
        }
    }
}
