package io.dogama.agent.registry.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Direct access to a closed registry's file: frames read, appended, removed and changed in place, each with valid
 * CRCs, and the head's recorded end and chain made anew with the registry's own key (so that only the values' MAC
 * stands in the way), or, for {@link #appendUnsigned} and {@link #replaceInPlace}, left as they are, as an attacker
 * without the key would have to.
 */
final class RawLog {
    private RawLog() {
    }

    /** One frame of the file, where it starts. */
    record Frame(long offset, byte op, String key, byte[] value) {
    }

    static Path file(Path dataDir) {
        return dataDir.resolve(LogRegistry.FILE);
    }

    /** Every whole frame of the file, in order (a cut-short last frame is not one). */
    static List<Frame> frames(Path dataDir) throws Exception {
        byte[] bytes = Files.readAllBytes(file(dataDir));
        List<Frame> out = new ArrayList<>();
        int at = LogRegistry.HEAD_BYTES;
        while (at + LogRegistry.FRAME_HEADER_BYTES <= bytes.length) {
            int length = ByteBuffer.wrap(bytes, at, 4).getInt();
            if (length < 2 || at + LogRegistry.FRAME_HEADER_BYTES + length > bytes.length) {
                break;
            }
            int p = at + LogRegistry.FRAME_HEADER_BYTES;
            int keyLength = bytes[p + 1] & 0xff;
            String key = new String(bytes, p + 2, keyLength, StandardCharsets.US_ASCII);
            byte[] value = Arrays.copyOfRange(bytes, p + 2 + keyLength, p + length);
            out.add(new Frame(at, bytes[p], key, value));
            at = p + length;
        }
        return out;
    }

    /** @return the value the file holds for {@code key} now, or null */
    static byte[] get(Path dataDir, String key) throws Exception {
        byte[] value = null;
        for (Frame f : frames(dataDir)) {
            if (f.op() == LogRegistry.PUT && f.key().equals(key)) {
                value = f.value();
            } else if (f.op() == LogRegistry.DROP && Slots.slotOf(key) >= 0 && Slots.instanceOf(key).equals(f.key())) {
                value = null;
            }
        }
        return value;
    }

    /** Appends a frame that puts {@code value} under {@code key}, and records the new end in the head. */
    static void put(Path dataDir, String key, byte[] value) throws Exception {
        appendUnsigned(dataDir, LogRegistry.frame(LogRegistry.PUT, key, value));
        sign(dataDir);
    }

    /** Appends {@code bytes} and leaves the head as it is. */
    static void appendUnsigned(Path dataDir, byte[] bytes) throws Exception {
        Files.write(file(dataDir), bytes, java.nio.file.StandardOpenOption.APPEND);
    }

    /** Records the file's size as its end in the head, signed with the registry's key. */
    static void sign(Path dataDir) throws Exception {
        sign(dataDir, Files.size(file(dataDir)));
    }

    /** Records {@code end} as the file's end in the head, with the chain over the frames before it, signed with the key. */
    static void sign(Path dataDir, long end) throws Exception {
        RecordMac mac = new RecordMac(Files.readAllBytes(dataDir.resolve(LogRegistry.KEY_FILE)));
        byte[] chain = LogRegistry.chainStart(mac);
        for (Frame f : frames(dataDir)) {
            if (f.offset() < end) {
                chain = LogRegistry.nextChain(mac, chain, f.offset(),
                        LogRegistry.frame(f.op(), f.key(), f.op() == LogRegistry.PUT ? f.value() : null));
            }
        }
        byte[] bytes = Files.readAllBytes(file(dataDir));
        System.arraycopy(LogRegistry.head(mac, end, chain), 0, bytes, 0, LogRegistry.HEAD_BYTES);
        Files.write(file(dataDir), bytes);
    }

    /** Rewrites the file without any frame of {@code key}. */
    static void remove(Path dataDir, String key) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[LogRegistry.HEAD_BYTES]);
        for (Frame f : frames(dataDir)) {
            if (!f.key().equals(key)) {
                out.write(LogRegistry.frame(f.op(), f.key(), f.op() == LogRegistry.PUT ? f.value() : null));
            }
        }
        Files.write(file(dataDir), out.toByteArray());
        sign(dataDir);
    }

    /** Changes the value of the last frame that put {@code key} in place, its CRC made to match. */
    static void replaceInPlace(Path dataDir, String key, byte[] value) throws Exception {
        Frame last = null;
        for (Frame f : frames(dataDir)) {
            if (f.op() == LogRegistry.PUT && f.key().equals(key)) {
                last = f;
            }
        }
        if (last == null || last.value().length != value.length) {
            throw new IllegalArgumentException("no frame of " + key + " with a value of that length");
        }
        byte[] bytes = Files.readAllBytes(file(dataDir));
        byte[] frame = LogRegistry.frame(LogRegistry.PUT, key, value);
        System.arraycopy(frame, 0, bytes, (int) last.offset(), frame.length);
        Files.write(file(dataDir), bytes);
    }

}
