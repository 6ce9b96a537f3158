package io.dogama.agent.registry.internal;

import io.dogama.agent.core.Ids;
import io.dogama.agent.core.LockFiles;
import io.dogama.agent.core.RegularFiles;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The registry as one append-only file of frames, {@value #FILE}, read whole at open and written only at its end.
 * The instances live in memory as well; the file is their durable copy. While the registry is open it reads the file
 * back only to compact it, and then requires every record to be the one it wrote or read at the open (by its SHA-256):
 * a change someone else makes meanwhile is never signed into the new file, and is refused at the next open.
 *
 * <p><b>Format.</b> A head: {@link #MAGIC}, the file's recorded end (8 bytes), the chain at that end (32 bytes) and
 * the MAC of both under the registry key. Then frames: the payload's length (4 bytes), the CRC-32C of the length and
 * the key, the CRC-32C of the length and the whole payload, and the payload: an operation byte, a key length byte,
 * the key (US-ASCII) and, for {@link #PUT}, the value. A {@link #PUT} stores a {@link RecordCodec} value under a slot
 * key ({@link Slots}), a {@link #DROP} removes both slots of an instance at once. The chain is a MAC over every frame
 * in turn: its place, kind, key, value length and the value's last bytes, a record's own MAC ({@link #nextChain}). So
 * the head vouches for which frames lie where and in what order (none removed, added, moved or retargeted without the
 * key), each record's MAC for its content, and the CRCs tell a frame cut short, or damaged, from a whole one.
 *
 * <p><b>Durability.</b> A write appends its frame at the recorded end and forces it to the disk, then records the new
 * end and chain in the head and forces that, and only then changes the memory: a caller (and every reader) sees only
 * what is on the disk, and the head never names an end the frames have not reached. Writes are one at a time. A crash
 * can leave at most one frame past the recorded end, whole or cut short: its write never returned, and the next open
 * cuts it off. Anything else is refused, the file left as it is: a file shorter than its recorded end, more than one
 * frame past it, a head whose MAC fails, frames the chain does not match, a frame whose length or key fails its check.
 * A frame before the recorded end whose value fails its check (or its MAC) says whose it is: that instance reads as
 * tampered.
 *
 * <p><b>Size.</b> Superseded frames stay until the garbage outgrows the live frames (and {@link #MIN_GARBAGE_BYTES});
 * then the live frames are copied into {@value #TEMP_FILE}, forced, and renamed over {@value #FILE}, so a crash
 * leaves either file whole.
 *
 * <p>Files in the data directory: {@value #FILE}, {@value #KEY_FILE} (the MAC key), {@value #LOCK_FILE} (one process
 * at a time) and, only while a registry is being made or compacted, {@value #TEMP_FILE}; each created with mode 0600
 * ({@link PrivateFiles}).
 */
public final class LogRegistry implements Registry {
    /** The registry file. */
    public static final String FILE = "registry.dat";
    /** The MAC key file. */
    public static final String KEY_FILE = "registry.key";
    /** The process lock file. */
    public static final String LOCK_FILE = "registry.lock";
    /** Where a new or compacted registry file is written before it is renamed to {@value #FILE}. */
    public static final String TEMP_FILE = FILE + ".tmp";
    /** The file's first bytes: the format and its version. */
    static final byte[] MAGIC = "DGMREG02".getBytes(StandardCharsets.US_ASCII);
    /** What the head's MAC is bound to; not a valid instance ID, so no record's MAC can stand for it. */
    static final String END_KEY = "\u0000end";
    /** What the frames' chain is bound to; not a valid instance ID either. */
    static final String CHAIN_KEY = "\u0000chain";
    /** The head: the magic, the recorded end, the chain at that end, the MAC of both. */
    static final int HEAD_BYTES = 8 + 8 + RecordMac.MAC_BYTES + RecordMac.MAC_BYTES;
    /** How much of a value's end the chain covers: a record's own MAC. */
    static final int CHAINED_TAIL_BYTES = RecordMac.MAC_BYTES;
    /** Frame operation: store the value under the key. */
    static final byte PUT = 1;
    /** Frame operation: remove both slots of the instance the key names. */
    static final byte DROP = 2;
    /** A frame's length and its two CRCs. */
    static final int FRAME_HEADER_BYTES = 12;
    /** A frame's largest payload: operation, key length, the longest key, the largest value. */
    static final int MAX_PAYLOAD_BYTES = 2 + 255 + RecordCodec.MAX_ENCODED_BYTES;
    /** Garbage below this is never compacted away (a few hundred writes of small records). */
    static final long MIN_GARBAGE_BYTES = 1L << 20;
    /**
     * Keys an open accepts: two slots per instance at the largest limit, and as many keys that name no instance
     * (each reads as tampered). Beyond it the file is not one this agent wrote.
     */
    static final int MAX_KEYS = 4 * MAX_INSTANCES;

    private static final System.Logger LOG = System.getLogger(LogRegistry.class.getName());

    /**
     * Where a stored value's frame is and what it holds: a {@code defect} (the value failed its check, MAC or parse:
     * the instance reads as tampered), or a verified value of {@code generation}, kept decoded only while it is the
     * instance's current version (the superseded one needs its generation alone, and the heap holds one record per
     * instance, not two).
     */
    record Slot(long offset, int length, long generation, RecordCodec.Decoded decoded, String defect, byte[] digest) {
        static Slot verified(long offset, byte[] frame, RecordCodec.Decoded decoded) {
            return new Slot(offset, frame.length, decoded.generation(), decoded, null, valueDigest(frame));
        }

        static Slot defective(long offset, byte[] frame, String defect) {
            return new Slot(offset, frame.length, -1, null, defect, valueDigest(frame));
        }

        Slot at(long newOffset) {
            return new Slot(newOffset, length, generation, decoded, defect, digest);
        }

        Slot superseded() {
            return decoded == null ? this : new Slot(offset, length, generation, null, defect, digest);
        }
    }

    /**
     * The SHA-256 of a frame's value: what a compaction, the one time the running registry reads its file back,
     * requires of every value it copies (a value changed under the registry must not be signed into the new chain).
     */
    static byte[] valueDigest(byte[] frame) {
        int valueAt = FRAME_HEADER_BYTES + 2 + (frame[FRAME_HEADER_BYTES + 1] & 0xff);
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(frame, valueAt, frame.length - valueAt);
            return sha.digest();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("registry: SHA-256 unavailable", e);
        }
    }

    /** A frame a compaction read back is not the one the registry wrote: the file was changed while it ran. */
    private static final class ChangedUnderTheRegistry extends IOException {
        private static final long serialVersionUID = 1L;

        ChangedUnderTheRegistry(String what) {
            super(what);
        }
    }

    /** An instance's two slots (either may be null, never both); replaced whole by every write. */
    record Entry(Slot s0, Slot s1) {
        Slot slot(int i) {
            return i == 0 ? s0 : s1;
        }

        Entry with(int i, Slot s) {
            return i == 0 ? new Entry(s, s1) : new Entry(s0, s);
        }
    }

    /** The steps of making a new registry file, named for the crash tests' seam. */
    enum CreationStep {
        /** The head is written to the temporary file. */
        LAID_OUT,
        /** The temporary file is forced to disk. */
        FORCED,
        /** The key is published. */
        KEY_PUBLISHED,
        /** The temporary file is renamed to the registry file's name and the directory forced. */
        RENAMED
    }

    /** The steps of a compaction, named for the crash tests' seam. */
    enum CompactionStep {
        /** The live frames are in the temporary file, forced. */
        WRITTEN,
        /** The temporary file replaced the registry file and the directory is forced. */
        RENAMED
    }

    /** Test seam: called after each {@link CreationStep}. The agent never sets it. */
    static volatile Consumer<CreationStep> afterCreationStep = step -> {
    };

    /** Test seam: called after each {@link CompactionStep}. The agent never sets it. */
    static volatile Consumer<CompactionStep> afterCompactionStep = step -> {
    };

    /** Test seam: the file's writes, forces and truncations. The agent never sets it. */
    static volatile Disk disk = Disk.REAL;

    private final RecordMac mac;
    private final int maxInstances;
    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock processLock;
    /** Instances by ID. */
    private final Map<String, Entry> entries;
    /** Keys that name no instance slot (forged), each read as tampered; only an open adds them. */
    private final Map<String, Slot> forged;
    /** Writes, compactions and close, one at a time; guards everything below but {@link #closed}. */
    private final ReentrantLock writes = new ReentrantLock();
    /** The registry file, read and write; opened again when an interrupt closed it. */
    private FileChannel file;
    /** Where the next frame goes: the end of the last forced frame. */
    private long end;
    /** The bytes a compaction would keep (the head, every slot, every forged key). */
    private long live;
    /** The file's end at which a compaction is tried next. */
    private long compactAt;
    /** The chain over every frame up to {@link #end}, as the head records it. */
    private byte[] chain;
    private volatile boolean closed;
    /** Why writes stopped: the file may no longer be what the memory holds. */
    private volatile String failed;
    /** Bumped by every write; a listing made at one version stands for that version. */
    private volatile long version;
    private volatile Listed listed;
    /** Instances already logged as tampered (bounded by the number of keys). */
    private final Set<String> reportedTampered = ConcurrentHashMap.newKeySet();

    private record Listed(long version, List<Lookup> lookups) {
    }

    private LogRegistry(RecordMac mac, int maxInstances, Path dir, FileChannel lockChannel, FileLock processLock,
            Loaded loaded) {
        this.mac = mac;
        this.maxInstances = maxInstances;
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.processLock = processLock;
        this.file = loaded.channel;
        this.end = loaded.end;
        this.chain = loaded.chain;
        this.entries = new ConcurrentHashMap<>(loaded.entries);
        this.forged = new ConcurrentHashMap<>(loaded.forged);
        this.live = liveBytes();
        this.compactAt = nextCompaction();
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
        if (!Files.isDirectory(dataDir, LinkOption.NOFOLLOW_LINKS)) {
            throw new RegistryException("data directory does not exist or is not a directory");
        }
        Path dir = dataDir.toAbsolutePath();
        FileLock lock;
        try {
            lock = LockFiles.acquire(dir.resolve(LOCK_FILE));
        } catch (LockFiles.InUse e) {
            throw new RegistryException("the registry is already open (lock file " + LOCK_FILE + ")", e);
        } catch (RegularFiles.NotRegular | LockFiles.Shared e) {
            throw new RegistryException("the lock file: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new RegistryException("the lock file " + LOCK_FILE + " cannot be opened or locked", e);
        }
        FileChannel lockChannel = lock.channel();
        try {
            return openLocked(dir, maxInstances, lockChannel, lock);
        } catch (RegistryException | RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private static Registry openLocked(Path dir, int maxInstances, FileChannel lockChannel, FileLock lock)
            throws RegistryException {
        Path registryFile = dir.resolve(FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        Loaded loaded;
        RecordMac mac;
        String how;
        Path tmp = dir.resolve(TEMP_FILE);
        if (Files.exists(registryFile, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
                throw new RegistryException("key missing while records exist: " + KEY_FILE + " is absent but "
                        + FILE + " exists; restore the key, the registry is never re-created over existing records");
            }
            mac = new RecordMac(KeyFile.load(keyFile));
            // What a compaction a crash cut short left: never taken for the registry.
            deleteStale(tmp);
            loaded = load(registryFile, mac);
            how = loaded.cut > 0 ? " after dropping a write a crash cut short" : "";
        } else if (Files.exists(keyFile, LinkOption.NOFOLLOW_LINKS)) {
            // A key without a registry: only a first start cut short between publishing the key and renaming the new
            // file into place leaves one, and then that file is there, empty and signed with the key. Anything else
            // is a registry removed or moved, and an empty one in its place would forget every instance.
            mac = new RecordMac(KeyFile.load(keyFile));
            if (!isNewRegistry(tmp, mac)) {
                throw new RegistryException(KEY_FILE + " exists but " + FILE + " does not: the registry was removed or"
                        + " moved; restore it (to start with no instances, remove " + KEY_FILE + " as well)");
            }
            try {
                disk.move(tmp, registryFile);
                disk.forceDirectory(dir);
            } catch (IOException e) {
                throw new RegistryException("cannot complete the creation of " + FILE, e);
            }
            loaded = load(registryFile, mac);
            how = " (new; its creation was cut short and is completed)";
        } else {
            deleteStale(tmp);
            byte[] key = KeyFile.generate();
            mac = new RecordMac(key);
            loaded = createNew(dir, mac, keyFile, key);
            LOG.log(Level.INFO, "registry: generated a new registry key");
            how = " (new)";
        }
        LogRegistry registry = new LogRegistry(mac, maxInstances, dir, lockChannel, lock, loaded);
        LOG.log(Level.INFO, "registry: opened with " + registry.count() + " instance(s)" + how);
        return registry;
    }

    private static void deleteStale(Path tmp) throws RegistryException {
        try {
            Fsync.delete(tmp);
        } catch (IOException e) {
            throw new RegistryException("cannot remove the stale " + TEMP_FILE, e);
        }
    }

    /** Whether {@code tmp} is a regular file holding exactly the head of an empty registry signed with {@code mac}. */
    private static boolean isNewRegistry(Path tmp, RecordMac mac) throws RegistryException {
        try {
            if (!Files.isRegularFile(tmp, LinkOption.NOFOLLOW_LINKS) || Files.size(tmp) != HEAD_BYTES) {
                return false;
            }
            byte[] bytes;
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer b = ByteBuffer.allocate(HEAD_BYTES);
                while (b.hasRemaining() && ch.read(b) >= 0) {
                    // until the head is read or the file ends
                }
                bytes = b.array();
            }
            return java.security.MessageDigest.isEqual(bytes, head(mac, HEAD_BYTES, chainStart(mac)));
        } catch (IOException e) {
            throw new RegistryException(TEMP_FILE + " is unreadable", e);
        }
    }

    /** A registry file as read: its channel, where the next frame goes, and what it holds. */
    private record Loaded(FileChannel channel, long end, byte[] chain, Map<String, Entry> entries,
            Map<String, Slot> forged, long cut) {
    }

    /**
     * Makes a new registry file under {@value #TEMP_FILE}: its head, signed with the new key, forced; then publishes the
     * key; then renames the file into place and forces the directory. A crash at any point leaves no key and no
     * {@value #FILE} (the next open starts afresh), a key and the complete temporary file (the next open puts it in
     * place), or both files. The channel stays open across the rename: it follows the file.
     */
    private static Loaded createNew(Path dir, RecordMac mac, Path keyFile, byte[] key) throws RegistryException {
        Path tmp = dir.resolve(TEMP_FILE);
        FileChannel ch = null;
        try {
            ch = PrivateFiles.createNew(tmp);
            byte[] chain = chainStart(mac);
            disk.write(ch, ByteBuffer.wrap(head(mac, HEAD_BYTES, chain)), 0);
            afterCreationStep.accept(CreationStep.LAID_OUT);
            disk.force(ch);
            afterCreationStep.accept(CreationStep.FORCED);
            // The new file's name on the disk before the key's: a key without it would refuse every later start.
            disk.forceDirectory(dir);
            if (!java.security.MessageDigest.isEqual(KeyFile.publish(keyFile, key), key)) {
                throw new RegistryException(KEY_FILE + " changed while it was published; nothing is created");
            }
            afterCreationStep.accept(CreationStep.KEY_PUBLISHED);
            disk.move(tmp, dir.resolve(FILE));
            disk.forceDirectory(dir);
            afterCreationStep.accept(CreationStep.RENAMED);
            return new Loaded(ch, HEAD_BYTES, chain, Map.of(), Map.of(), 0);
        } catch (RegistryException e) {
            closeQuietly(ch);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw new RegistryException("cannot create " + FILE, e);
        }
    }

    /** The head of a file whose frames end at {@code end} with {@code chain}: the magic, both, their MAC. */
    static byte[] head(RecordMac mac, long end, byte[] chain) {
        byte[] head = new byte[HEAD_BYTES];
        System.arraycopy(MAGIC, 0, head, 0, MAGIC.length);
        byte[] signed = new byte[8 + 2 * RecordMac.MAC_BYTES];
        ByteBuffer.wrap(signed).putLong(end).put(chain);
        mac.sign(END_KEY, signed, 8 + RecordMac.MAC_BYTES);
        System.arraycopy(signed, 0, head, MAGIC.length, signed.length);
        return head;
    }

    /** The chain of a file without frames. */
    static byte[] chainStart(RecordMac mac) {
        byte[] buf = new byte[RecordMac.MAC_BYTES];
        mac.sign(CHAIN_KEY, buf, 0);
        return buf;
    }

    /**
     * The chain after the frame at {@code offset}: a MAC, under the registry key, of the chain before it, the frame's
     * place, kind and key, its value's length and the value's last {@value #CHAINED_TAIL_BYTES} bytes (a record's own
     * MAC). So the head, which records the chain at the end, vouches for which frames lie where, and in what order;
     * a value's body is vouched for by its own MAC, and damage to it makes only its instance read as tampered.
     */
    static byte[] nextChain(RecordMac mac, byte[] chain, long offset, byte[] frame) {
        int keyLength = frame[FRAME_HEADER_BYTES + 1] & 0xff;
        int valueAt = FRAME_HEADER_BYTES + 2 + keyLength;
        int valueLength = frame.length - valueAt;
        int tail = Math.min(valueLength, CHAINED_TAIL_BYTES);
        ByteBuffer b = ByteBuffer.allocate(chain.length + 8 + 2 + keyLength + 4 + tail + RecordMac.MAC_BYTES);
        b.put(chain).putLong(offset).put(frame, FRAME_HEADER_BYTES, 2 + keyLength).putInt(valueLength)
                .put(frame, frame.length - tail, tail);
        byte[] buf = b.array();
        int body = buf.length - RecordMac.MAC_BYTES;
        mac.sign(CHAIN_KEY, buf, body);
        return java.util.Arrays.copyOfRange(buf, body, buf.length);
    }

    /** A frame's bytes. */
    static byte[] frame(byte op, String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        int payload = 2 + k.length + (value == null ? 0 : value.length);
        ByteBuffer b = ByteBuffer.allocate(FRAME_HEADER_BYTES + payload);
        b.putInt(payload).putInt(0).putInt(0).put(op).put((byte) k.length).put(k);
        if (value != null) {
            b.put(value);
        }
        byte[] bytes = b.array();
        ByteBuffer.wrap(bytes).putInt(4, headCrc(bytes)).putInt(8, bodyCrc(bytes));
        return bytes;
    }

    /**
     * The CRC-32C of a frame's length, operation and key: whether the frame is where and what it says, even when its
     * value is damaged ({@code frame} holds at least the head; the key length is read from it).
     */
    static int headCrc(byte[] frame) {
        CRC32C crc = new CRC32C();
        crc.update(frame, 0, 4);
        crc.update(frame, FRAME_HEADER_BYTES, Math.min(frame.length - FRAME_HEADER_BYTES,
                2 + (frame[FRAME_HEADER_BYTES + 1] & 0xff)));
        return (int) crc.getValue();
    }

    /** The CRC-32C of a frame's length and whole payload: whether all of it reached the disk. */
    static int bodyCrc(byte[] frame) {
        CRC32C crc = new CRC32C();
        crc.update(frame, 0, 4);
        crc.update(frame, FRAME_HEADER_BYTES, frame.length - FRAME_HEADER_BYTES);
        return (int) crc.getValue();
    }

    /**
     * Reads a registry file whole, up to its recorded end; past it there may be one frame of a write a crash ended
     * before it returned, which is cut off. Anything else that is not as a registry writes it refuses the open and
     * leaves the file as it is.
     */
    private static Loaded load(Path registryFile, RecordMac mac) throws RegistryException {
        FileChannel ch = null;
        try {
            try {
                RegularFiles.requireIfPresent(registryFile);
            } catch (RegularFiles.NotRegular e) {
                throw new RegistryException(FILE + " is not a regular file", e);
            }
            ch = FileChannel.open(registryFile, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            Scan scan = new Scan(ch, mac);
            scan.run();
            long cut = scan.tail;
            if (cut > 0) {
                LOG.log(Level.WARNING, "registry: cutting off the " + cut + " byte(s) past the recorded end of " + FILE
                        + ": a write a crash ended before it returned");
                disk.truncate(ch, scan.end);
                disk.force(ch);
            }
            Map<String, Entry> entries = new HashMap<>();
            Map<String, Slot> forged = new HashMap<>();
            for (Map.Entry<String, Slot> e : scan.slots.entrySet()) {
                String key = e.getKey();
                int slot = Slots.slotOf(key);
                if (slot < 0) {
                    forged.put(key, e.getValue());
                } else {
                    entries.merge(Slots.instanceOf(key), new Entry(null, null).with(slot, e.getValue()),
                            (a, b) -> a.with(slot, b.slot(slot)));
                }
            }
            FileChannel open = ch;
            ch = null;
            return new Loaded(open, scan.end, scan.chain, entries, forged, cut);
        } catch (IOException e) {
            throw new RegistryException(FILE + " is unreadable", e);
        } finally {
            closeQuietly(ch);
        }
    }

    /** One pass over the frames of a registry file. */
    private static final class Scan {
        private final FileChannel ch;
        private final RecordMac mac;
        private final long size;
        /** The live value of every key, decoded. */
        final Map<String, Slot> slots = new HashMap<>();
        /** The end of the frames read: the recorded end, once {@link #run} returned. */
        long end;
        /** The bytes past the recorded end: a write that never returned. */
        long tail;
        /** The chain over the frames read. */
        byte[] chain;

        Scan(FileChannel ch, RecordMac mac) throws IOException {
            this.ch = ch;
            this.mac = mac;
            this.size = ch.size();
        }

        void run() throws IOException, RegistryException {
            byte[] head = read(0, (int) Math.min(HEAD_BYTES, size));
            if (head.length < HEAD_BYTES || !java.util.Arrays.equals(head, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                throw new RegistryException(FILE + " is not a registry file this agent can read (its first bytes are"
                        + " not the format's head); it is left as it is");
            }
            byte[] signed = java.util.Arrays.copyOfRange(head, MAGIC.length, HEAD_BYTES);
            if (!mac.verify(END_KEY, signed)) {
                throw new RegistryException("registry key does not match the registry (its head fails its MAC: "
                        + KEY_FILE + " belongs to another registry, or the head of " + FILE
                        + " was altered or damaged); it is left as it is");
            }
            long recorded = ByteBuffer.wrap(signed).getLong();
            byte[] recordedChain = java.util.Arrays.copyOfRange(signed, 8, 8 + RecordMac.MAC_BYTES);
            chain = chainStart(mac);
            if (recorded < HEAD_BYTES || recorded > size) {
                throw new RegistryException(FILE + " is shorter than its recorded end (" + size + " of " + recorded
                        + " bytes): cut short; it is left as it is, restore it from a backup");
            }
            end = HEAD_BYTES;
            while (end < recorded) {
                long remaining = recorded - end;
                if (remaining < FRAME_HEADER_BYTES + 2) {
                    throw damaged("a frame that crosses the recorded end");
                }
                int length = ByteBuffer.wrap(read(end, 4)).getInt();
                if (length < 2 || length > MAX_PAYLOAD_BYTES || FRAME_HEADER_BYTES + (long) length > remaining) {
                    throw damaged("a frame of impossible length");
                }
                byte[] frame = read(end, FRAME_HEADER_BYTES + length);
                ByteBuffer b = ByteBuffer.wrap(frame);
                if (b.getInt(4) != headCrc(frame)
                        || FRAME_HEADER_BYTES + 2 + (frame[FRAME_HEADER_BYTES + 1] & 0xff) > frame.length) {
                    throw damaged("a frame whose length, kind or key fails its check");
                }
                chain = nextChain(mac, chain, end, frame);
                apply(frame, b.getInt(8) == bodyCrc(frame));
                end += frame.length;
            }
            if (!java.security.MessageDigest.isEqual(chain, recordedChain)) {
                throw new RegistryException(FILE + "'s records are not the ones its head vouches for (removed, added,"
                        + " moved or replaced, or a record's own MAC damaged); it is left as it is: restore it from a"
                        + " backup");
            }
            tail = size - end;
            if (tail > 0 && !atMostOneFrame(tail)) {
                throw new RegistryException(FILE + " has " + tail + " bytes past its recorded end, more than the one"
                        + " write a crash can leave there: appended to; it is left as it is");
            }
        }

        /** Whether the {@code tail} bytes past the recorded end can be one frame, whole or cut short. */
        private boolean atMostOneFrame(long tail) throws IOException {
            if (tail < 4) {
                return true;
            }
            int length = ByteBuffer.wrap(read(end, 4)).getInt();
            if (length >= 2 && length <= MAX_PAYLOAD_BYTES) {
                return tail <= FRAME_HEADER_BYTES + (long) length;
            }
            // A length the crash left unwritten: no more than the longest frame.
            return tail <= FRAME_HEADER_BYTES + (long) MAX_PAYLOAD_BYTES;
        }

        /**
         * @param whole whether the value passed its check too; a value damaged in a frame that is not the last one
         *              is kept, and its instance reads as tampered (the frame says whose it is)
         */
        private void apply(byte[] frame, boolean whole) throws RegistryException {
            int keyLength = frame[FRAME_HEADER_BYTES + 1] & 0xff;
            int valueAt = FRAME_HEADER_BYTES + 2 + keyLength;
            String key = ascii(frame, FRAME_HEADER_BYTES + 2, keyLength);
            byte op = frame[FRAME_HEADER_BYTES];
            byte[] value = java.util.Arrays.copyOfRange(frame, valueAt, frame.length);
            if (key == null || key.isEmpty()) {
                throw damaged("a frame with a key no registry writes");
            }
            switch (op) {
                case PUT -> {
                    if (!slots.containsKey(key) && slots.size() >= MAX_KEYS) {
                        throw damaged("more keys than any registry holds");
                    }
                    slots.put(key, whole ? decode(key, value, frame)
                            : Slot.defective(end, frame, "damaged in the file"));
                    supersedeTheOlder(key);
                }
                case DROP -> {
                    if (!Ids.isId(key) || value.length != 0 || !whole) {
                        throw damaged("a removal that names no instance");
                    }
                    slots.remove(Slots.key(key, 0));
                    slots.remove(Slots.key(key, 1));
                }
                default -> throw damaged("a frame of unknown kind");
            }
        }

        private Slot decode(String key, byte[] value, byte[] frame) {
            int slot = Slots.slotOf(key);
            if (slot < 0) {
                return Slot.defective(end, frame, "a key of no instance");
            }
            try {
                RecordCodec.Decoded d = RecordCodec.decodeRecord(mac, key, Slots.instanceOf(key), value);
                RecordCodec.require(d.generation() % 2 == slot, "generation in the wrong slot");
                return Slot.verified(end, frame, d);
            } catch (RecordCodec.MalformedRecordException e) {
                return Slot.defective(end, frame, e.getMessage());
            }
        }

        /** As the scan goes, only the newer of an instance's two verified versions stays decoded. */
        private void supersedeTheOlder(String key) {
            int slot = Slots.slotOf(key);
            if (slot < 0) {
                return;
            }
            String siblingKey = Slots.key(Slots.instanceOf(key), 1 - slot);
            Slot mine = slots.get(key);
            Slot sibling = slots.get(siblingKey);
            if (sibling == null || mine.defect() != null || sibling.defect() != null) {
                return;
            }
            if (mine.generation() > sibling.generation()) {
                slots.put(siblingKey, sibling.superseded());
            } else {
                slots.put(key, mine.superseded());
            }
        }

        private byte[] read(long at, int length) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining()) {
                if (ch.read(b, at + b.position()) < 0) {
                    throw new IOException(FILE + " ended while it was read");
                }
            }
            return b.array();
        }

        private RegistryException damaged(String what) {
            return new RegistryException(FILE + " is damaged at byte " + end + " (" + what
                    + "); it is left as it is: restore it from a backup");
        }
    }

    /** @return the key, or null if it is not printable US-ASCII */
    private static String ascii(byte[] bytes, int from, int length) {
        for (int i = from; i < from + length; i++) {
            if (bytes[i] < 0x20 || bytes[i] == 0x7f) {
                return null;
            }
        }
        return new String(bytes, from, length, StandardCharsets.US_ASCII);
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
        checkOpen();
        return evaluate(instanceId, entries.get(instanceId), true);
    }

    @Override
    public List<Lookup> all() throws RegistryException {
        checkOpen();
        long at = version;
        Listed last = listed;
        if (last != null && last.version() == at) {
            return last.lookups();
        }
        List<Lookup> out = new ArrayList<>(entries.size() + forged.size());
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            out.add(evaluate(e.getKey(), e.getValue(), false));
        }
        for (String key : forged.keySet()) {
            out.add(new Lookup.Tampered(key));
        }
        out.removeIf(l -> l instanceof Lookup.Absent);
        out.sort(Comparator.comparing(Lookup::instanceId));
        List<Lookup> lookups = List.copyOf(out);
        // Only a walk no write overlapped stands for its version.
        if (version == at) {
            listed = new Listed(at, lookups);
        }
        return lookups;
    }

    @Override
    public CasResult insert(InstanceRecord record) throws RegistryException {
        String id = record.instanceId();
        String key = Slots.key(id, 1);
        byte[] bytes = frame(PUT, key, RecordCodec.encodeRecord(mac, key, record, 1));
        writes.lock();
        try {
            checkOpen();
            switch (evaluate(id, entries.get(id), true)) {
                case Lookup.Found f -> {
                    return new CasResult.Conflict(id, f.generation());
                }
                case Lookup.Tampered t -> {
                    return new CasResult.Tampered(id);
                }
                case Lookup.Absent a -> {
                    if (count() >= maxInstances) {
                        return new CasResult.Full(id, maxInstances);
                    }
                }
            }
            long at = append(bytes, "insert");
            entries.put(id, new Entry(null, Slot.verified(at, bytes, new RecordCodec.Decoded(record, 1))));
            written(bytes.length, 0);
            return new CasResult.Stored(record, 1);
        } finally {
            writes.unlock();
        }
    }

    @Override
    public CasResult replace(long expectedGeneration, InstanceRecord next) throws RegistryException {
        String id = next.instanceId();
        long generation = expectedGeneration + 1;
        String key = Slots.key(id, generation);
        byte[] bytes = expectedGeneration >= 1 && expectedGeneration < Long.MAX_VALUE
                ? frame(PUT, key, RecordCodec.encodeRecord(mac, key, next, generation))
                : null;
        writes.lock();
        try {
            checkOpen();
            Entry entry = entries.get(id);
            CasResult refused = refusal(id, evaluate(id, entry, true), expectedGeneration);
            if (refused != null) {
                return refused;
            }
            // The new version goes to the other slot, over the version before the current one.
            int slot = (int) (generation % 2);
            Slot old = entry.slot(slot);
            Slot current = entry.slot(1 - slot);
            long at = append(bytes, "replace");
            entries.put(id, entry.with(slot, Slot.verified(at, bytes, new RecordCodec.Decoded(next, generation)))
                    .with(1 - slot, current == null ? null : current.superseded()));
            written(bytes.length, old == null ? 0 : old.length());
            return new CasResult.Stored(next, generation);
        } finally {
            writes.unlock();
        }
    }

    @Override
    public CasResult remove(String instanceId, long expectedGeneration) throws RegistryException {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!Ids.isId(instanceId)) {
            return new CasResult.Absent(instanceId);
        }
        byte[] bytes = frame(DROP, instanceId, null);
        writes.lock();
        try {
            checkOpen();
            Entry entry = entries.get(instanceId);
            CasResult refused = refusal(instanceId, evaluate(instanceId, entry, true), expectedGeneration);
            if (refused != null) {
                return refused;
            }
            // One frame drops both slots: cut short, it is dropped whole at the next open and the current version
            // stays; never the stale one alone.
            append(bytes, "remove");
            entries.remove(instanceId);
            reportedTampered.remove(instanceId);
            written(0, (entry.s0() == null ? 0 : entry.s0().length()) + (entry.s1() == null ? 0 : entry.s1().length()));
            return new CasResult.Removed(instanceId);
        } finally {
            writes.unlock();
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

    /** @return how many records the memory holds decoded: one per instance at most (the tests' view of the heap) */
    int decodedRecords() {
        int n = 0;
        for (Entry e : entries.values()) {
            n += (e.s0() != null && e.s0().decoded() != null ? 1 : 0) + (e.s1() != null && e.s1().decoded() != null ? 1 : 0);
        }
        return n;
    }

    /** Instances held, forged keys included (each takes a place as an instance that needs an operator). */
    private int count() {
        return entries.size() + forged.size();
    }

    /**
     * The current version of an instance from its two slots: the higher generation, provided every present slot
     * verified, sits in the slot of its generation's parity, and the two generations are consecutive (anything
     * else is a splice of copies from different times: tampered).
     */
    private Lookup evaluate(String id, Entry entry, boolean report) {
        if (entry == null) {
            return new Lookup.Absent(id);
        }
        Slot s0 = entry.s0();
        Slot s1 = entry.s1();
        String defect = s0 != null && s0.defect() != null ? s0.defect()
                : s1 != null && s1.defect() != null ? s1.defect()
                : s0 != null && s1 != null && Math.abs(s0.generation() - s1.generation()) != 1 ? "slots out of step"
                : null;
        if (defect != null) {
            if (report && reportedTampered.add(id)) {
                // Once per instance and process: listings would repeat it on every call. Fixed text only.
                LOG.log(Level.WARNING, "registry: a record failed authentication or parsing (" + defect
                        + "); it is reported as tampered and never acted on");
            }
            return new Lookup.Tampered(id);
        }
        Slot current = s0 == null ? s1 : s1 == null ? s0 : s0.generation() > s1.generation() ? s0 : s1;
        return new Lookup.Found(current.decoded().record(), current.generation());
    }

    /**
     * Appends a frame at the recorded end and forces it to the disk, then records the new end in the head and forces
     * that, and returns where the frame went. Only then may the caller change the memory. A failed write of the frame
     * is cut off again, so that the next frame follows the last one; if even that fails, or anything after the frame
     * is on the disk fails (a force that failed may have left pages the kernel could not write marked clean), the
     * registry stops: the file may no longer be what the memory holds.
     */
    private long append(byte[] frame, String op) throws RegistryException {
        byte[] nextChain = nextChain(mac, chain, end, frame);
        byte[] nextHead = head(mac, end + frame.length, nextChain);
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                FileChannel ch = file;
                try {
                    try {
                        disk.write(ch, ByteBuffer.wrap(frame), end);
                    } catch (ClosedChannelException e) {
                        throw e;
                    } catch (IOException e) {
                        cutBack(op, e);
                        if (noSpace(frame.length)) {
                            throw new RegistryFullException(op + ": no space left for the registry file", e);
                        }
                        throw new RegistryException(op + ": the write failed; nothing was stored", e);
                    }
                    disk.force(ch);
                    disk.write(ch, ByteBuffer.wrap(nextHead), 0);
                    disk.force(ch);
                } catch (ClosedChannelException e) {
                    // An interrupt (the server's forced stop, after its grace period) closes an interruptible
                    // channel for every thread: the file is opened again, once, with the interrupt held back until
                    // the write is done, and whatever the interrupted attempt left is undone first.
                    interrupted |= Thread.interrupted();
                    if (attempt > 0 || closed) {
                        throw fail(op + ": the write was interrupted and the file could not be opened again", e);
                    }
                    reopen();
                    continue;
                } catch (IOException e) {
                    throw fail(op + ": the write could not be forced to the disk", e);
                }
                long at = end;
                end += frame.length;
                chain = nextChain;
                return at;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Opens the file again after an interrupt closed it, and undoes whatever the interrupted write left: the head is
     * put back and forced before the file is cut, so that no crash in between leaves a head naming an end the file no
     * longer reaches.
     */
    private void reopen() throws RegistryException {
        try {
            FileChannel ch = FileChannel.open(dir.resolve(FILE), StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            file = ch;
            disk.write(ch, ByteBuffer.wrap(head(mac, end, chain)), 0);
            disk.force(ch);
            disk.truncate(ch, end);
            disk.force(ch);
        } catch (IOException e) {
            throw fail("the registry file could not be opened again", e);
        }
    }

    private void cutBack(String op, IOException cause) throws RegistryException {
        try {
            disk.truncate(file, end);
            disk.force(file);
        } catch (IOException e) {
            e.addSuppressed(cause);
            throw fail(op + ": a failed write could not be cut off the registry file", e);
        }
    }

    /** Whether a failed write of {@code bytes} is the file system's lack of room rather than an I/O error. */
    private boolean noSpace(int bytes) {
        try {
            return Files.getFileStore(dir).getUsableSpace() < bytes + 4096L;
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops every later write and read: the file may no longer be what the memory holds. */
    private RegistryException fail(String why, IOException cause) {
        failed = why;
        LOG.log(Level.ERROR, "registry: " + why + "; it takes no more requests until the agent is restarted");
        return new RegistryException(why, cause);
    }

    /** After a write: the live bytes, the listing's version, and a compaction when the garbage has grown enough. */
    private void written(long added, long superseded) {
        live += added - superseded;
        version++;
        if (end >= compactAt) {
            // With the caller's interrupt held back: an interruptible channel would close under it.
            boolean interrupted = Thread.interrupted();
            try {
                compact();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private long liveBytes() {
        long bytes = HEAD_BYTES;
        for (Entry e : entries.values()) {
            bytes += (e.s0() == null ? 0 : e.s0().length()) + (e.s1() == null ? 0 : e.s1().length());
        }
        for (Slot s : forged.values()) {
            bytes += s.length();
        }
        return bytes;
    }

    private long nextCompaction() {
        return end + Math.max(live, MIN_GARBAGE_BYTES);
    }

    /**
     * Copies the live frames into {@value #TEMP_FILE} under a head of their own, forces it, renames it over {@value
     * #FILE} and forces the directory; the registry then writes to the new file. Values are copied as they are on the
     * disk (never encoded again), each frame's key checked again on the way. A compaction that fails before the rename
     * changes nothing and is tried again after as much garbage again; one that fails after it stops the registry (the
     * new file's name may not be on the disk).
     */
    private void compact() {
        Path tmp = dir.resolve(TEMP_FILE);
        FileChannel out = null;
        long at = HEAD_BYTES;
        byte[] movedChain = chainStart(mac);
        Map<String, Entry> moved = new HashMap<>();
        Map<String, Slot> movedForged = new HashMap<>();
        try {
            Files.deleteIfExists(tmp);
            out = PrivateFiles.createNew(tmp);
            for (Map.Entry<String, Entry> e : entries.entrySet()) {
                Entry entry = e.getValue();
                Slot s0 = null;
                Slot s1 = null;
                if (entry.s0() != null) {
                    s0 = entry.s0().at(at);
                    byte[] frame = copy(Slots.key(e.getKey(), 0), entry.s0(), out, at);
                    movedChain = nextChain(mac, movedChain, at, frame);
                    at += frame.length;
                }
                if (entry.s1() != null) {
                    s1 = entry.s1().at(at);
                    byte[] frame = copy(Slots.key(e.getKey(), 1), entry.s1(), out, at);
                    movedChain = nextChain(mac, movedChain, at, frame);
                    at += frame.length;
                }
                moved.put(e.getKey(), new Entry(s0, s1));
            }
            for (Map.Entry<String, Slot> e : forged.entrySet()) {
                movedForged.put(e.getKey(), e.getValue().at(at));
                byte[] frame = copy(e.getKey(), e.getValue(), out, at);
                movedChain = nextChain(mac, movedChain, at, frame);
                at += frame.length;
            }
            disk.write(out, ByteBuffer.wrap(head(mac, at, movedChain)), 0);
            disk.force(out);
            afterCompactionStep.accept(CompactionStep.WRITTEN);
            disk.move(tmp, dir.resolve(FILE));
        } catch (ChangedUnderTheRegistry e) {
            // Tampering seen while the agent runs: never signed into a new chain, and said as loudly as it is.
            LOG.log(Level.ERROR, "registry: " + e.getMessage() + "; no compaction, and the next start will refuse "
                    + FILE + " (restore it from a backup)");
            closeQuietly(out);
            deleteQuietly(tmp);
            compactAt = nextCompaction();
            return;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "registry: compaction failed; the registry file stays as it is", e);
            closeQuietly(out);
            deleteQuietly(tmp);
            compactAt = nextCompaction();
            return;
        }
        // From the rename on, the new file is the registry: the old channel's file is gone.
        long before = end;
        FileChannel old = file;
        file = out;
        end = at;
        live = at;
        chain = movedChain;
        closeQuietly(old);
        // Offsets only: what every instance reads as is unchanged.
        entries.putAll(moved);
        forged.putAll(movedForged);
        if (!forceDirectoryAfterRename()) {
            return;
        }
        afterCompactionStep.accept(CompactionStep.RENAMED);
        compactAt = nextCompaction();
        LOG.log(Level.INFO, "registry: compacted " + FILE + " from " + before + " to " + end + " bytes");
    }

    /**
     * Forces the directory after the compaction's rename, once more if an interrupt closed the channel (with the
     * interrupt held back until then); @return false if the registry had to stop (the new file's name may not be on
     * the disk)
     */
    private boolean forceDirectoryAfterRename() {
        boolean interrupted = false;
        try {
            for (int attempt = 0; ; attempt++) {
                try {
                    disk.forceDirectory(dir);
                    return true;
                } catch (ClosedChannelException e) {
                    interrupted |= Thread.interrupted();
                    if (attempt > 0) {
                        fail("compaction: the directory could not be forced after the rename", e);
                        return false;
                    }
                } catch (IOException e) {
                    fail("compaction: the directory could not be forced after the rename", e);
                    return false;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void deleteQuietly(Path tmp) {
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "registry: could not remove " + TEMP_FILE, e);
        }
    }

    /**
     * Copies the frame that put {@code key} from the registry file into {@code out} at {@code at}, its value byte for
     * byte (a damaged one too: it is the evidence, and its MAC still fails), its CRCs made anew.
     */
    private byte[] copy(String key, Slot slot, FileChannel out, long at) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(slot.length());
        while (b.hasRemaining()) {
            if (file.read(b, slot.offset() + b.position()) < 0) {
                throw new IOException(FILE + " is shorter than the registry wrote it");
            }
        }
        byte[] frame = b.array();
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        int valueAt = FRAME_HEADER_BYTES + 2 + k.length;
        if (ByteBuffer.wrap(frame).getInt(4) != headCrc(frame) || frame[FRAME_HEADER_BYTES] != PUT
                || !java.util.Arrays.equals(frame, FRAME_HEADER_BYTES + 2, Math.min(valueAt, frame.length), k, 0,
                        k.length)
                || !java.security.MessageDigest.isEqual(valueDigest(frame), slot.digest())) {
            throw new ChangedUnderTheRegistry("a record of " + FILE + " is not the one the registry wrote or read at"
                    + " its start: the file was changed while the agent ran");
        }
        byte[] copy = frame(PUT, key, java.util.Arrays.copyOfRange(frame, valueAt, frame.length));
        disk.write(out, ByteBuffer.wrap(copy), at);
        return copy;
    }

    private void checkOpen() throws RegistryException {
        if (closed) {
            throw new RegistryException("the registry is closed");
        }
        String why = failed;
        if (why != null) {
            throw new RegistryException("the registry stopped after a failed write (" + why + "); restart the agent");
        }
    }

    @Override
    public void close() {
        writes.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closeQuietly(file);
            try {
                processLock.release();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "registry: could not release the process lock", e);
            }
            closeQuietly(lockChannel);
            LOG.log(Level.INFO, "registry: closed");
        } finally {
            writes.unlock();
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "registry: closing a file failed", e);
            }
        }
    }
}
