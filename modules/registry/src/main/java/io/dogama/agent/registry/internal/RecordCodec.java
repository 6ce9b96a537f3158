package io.dogama.agent.registry.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.InstanceRecord;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The stored form of a record: a small strict length-prefixed binary layout followed by its MAC.
 *
 * <pre>
 * 'D' 'R' kind:u8 format:u8 generation:i64 payload... mac:32 bytes
 * </pre>
 *
 * The MAC (see {@link RecordMac}) covers the map key and every byte before it. Decoding is strict: a
 * wrong magic, kind or format, an out-of-range length or flag, malformed UTF-8, an unknown state or a
 * trailing byte is a decode failure, and so is a payload whose instance ID differs from its key.
 */
final class RecordCodec {
    static final byte KIND_RECORD = 1;
    static final int HEADER_BYTES = 12;
    /** Every string other than a plan is far below this; a plan is at most {@link InstanceRecord#MAX_PLAN_BYTES}. */
    static final int MAX_SHORT_STRING_BYTES = 1024;
    /** Upper bound of an encoded record (two plans, the short fields, the header and the MAC), in bytes. */
    static final int MAX_ENCODED_BYTES = HEADER_BYTES + 2 * (4 + InstanceRecord.MAX_PLAN_BYTES)
            + 16 * (4 + MAX_SHORT_STRING_BYTES) + RecordMac.MAC_BYTES;

    private RecordCodec() {
    }

    /** The decoded content and its generation. */
    record Decoded(InstanceRecord record, long generation) {
    }

    /** Thrown for any malformed stored value; never leaves the registry (it becomes {@code Tampered}). */
    static final class MalformedRecordException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedRecordException(String message) {
            super(message, null, false, false);
        }
    }

    /** @param mapKey the slot key the value is stored under (bound into the MAC) */
    static byte[] encodeRecord(RecordMac mac, String mapKey, InstanceRecord r, long generation) {
        Writer w = new Writer();
        w.header(KIND_RECORD, generation);
        w.string(r.instanceId());
        w.optional(r.containerId());
        w.string(r.containerName());
        w.string(r.templateId());
        w.string(r.templateVersion());
        w.string(r.planDigest());
        w.string(r.canonicalPlan());
        w.string(r.state().name());
        w.buf.putLong(r.revision());
        w.bool(r.prior().isPresent());
        if (r.prior().isPresent()) {
            InstanceRecord.Prior p = r.prior().get();
            w.string(p.canonicalPlan());
            w.string(p.planDigest());
            w.string(p.templateId());
            w.string(p.templateVersion());
            w.optional(p.containerId());
            w.string(p.containerName());
            w.bool(p.wasRunning());
        }
        w.optional(r.step());
        return w.seal(mac, mapKey);
    }

    /**
     * @param mapKey     the slot key the value is stored under
     * @param instanceId the instance the slot belongs to; the payload must name it
     * @throws MalformedRecordException if the MAC fails or the content is malformed
     */
    static Decoded decodeRecord(RecordMac mac, String mapKey, String instanceId, byte[] value)
            throws MalformedRecordException {
        if (value == null || value.length < HEADER_BYTES + RecordMac.MAC_BYTES || value.length > MAX_ENCODED_BYTES) {
            throw new MalformedRecordException("bad length");
        }
        // Authenticate before parsing a single field: nothing unauthenticated reaches the parser.
        if (!mac.verify(mapKey, value)) {
            throw new MalformedRecordException("mac mismatch");
        }
        ByteBuffer b = ByteBuffer.wrap(value, 0, value.length - RecordMac.MAC_BYTES);
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            if (b.get() != 'D' || b.get() != 'R' || b.get() != KIND_RECORD) {
                throw new MalformedRecordException("bad magic");
            }
            int format = b.get();
            if (format != InstanceRecord.CURRENT_FORMAT) {
                throw new MalformedRecordException("unknown format");
            }
            long generation = b.getLong();
            if (generation < 1) {
                throw new MalformedRecordException("bad generation");
            }
            String id = string(utf8, b, MAX_SHORT_STRING_BYTES);
            if (!id.equals(instanceId)) {
                throw new MalformedRecordException("key mismatch");
            }
            Optional<String> containerId = optional(utf8, b);
            String containerName = string(utf8, b, MAX_SHORT_STRING_BYTES);
            String templateId = string(utf8, b, MAX_SHORT_STRING_BYTES);
            String templateVersion = string(utf8, b, MAX_SHORT_STRING_BYTES);
            String planDigest = string(utf8, b, MAX_SHORT_STRING_BYTES);
            String plan = string(utf8, b, InstanceRecord.MAX_PLAN_BYTES);
            InstanceState state = state(string(utf8, b, MAX_SHORT_STRING_BYTES));
            long revision = b.getLong();
            Optional<InstanceRecord.Prior> prior = Optional.empty();
            if (bool(b)) {
                prior = Optional.of(new InstanceRecord.Prior(string(utf8, b, InstanceRecord.MAX_PLAN_BYTES),
                        string(utf8, b, MAX_SHORT_STRING_BYTES), string(utf8, b, MAX_SHORT_STRING_BYTES),
                        string(utf8, b, MAX_SHORT_STRING_BYTES), optional(utf8, b), string(utf8, b, MAX_SHORT_STRING_BYTES), bool(b)));
            }
            Optional<String> step = optional(utf8, b);
            if (b.hasRemaining()) {
                throw new MalformedRecordException("trailing bytes");
            }
            return new Decoded(new InstanceRecord(format, id, containerId, containerName, templateId, templateVersion,
                    planDigest, plan, state, revision, prior, step), generation);
        } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
            throw new MalformedRecordException("malformed content");
        }
    }

    static void require(boolean ok, String reason) throws MalformedRecordException {
        if (!ok) {
            throw new MalformedRecordException(reason);
        }
    }

    private static InstanceState state(String name) throws MalformedRecordException {
        for (InstanceState s : InstanceState.values()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new MalformedRecordException("unknown state");
    }

    private static boolean bool(ByteBuffer b) throws MalformedRecordException {
        byte v = b.get();
        if (v != 0 && v != 1) {
            throw new MalformedRecordException("bad flag");
        }
        return v == 1;
    }

    private static Optional<String> optional(CharsetDecoder utf8, ByteBuffer b) throws MalformedRecordException {
        return bool(b) ? Optional.of(string(utf8, b, MAX_SHORT_STRING_BYTES)) : Optional.empty();
    }

    private static String string(CharsetDecoder utf8, ByteBuffer b, int max) throws MalformedRecordException {
        int n = b.getInt();
        if (n < 0 || n > max || n > b.remaining()) {
            throw new MalformedRecordException("bad length");
        }
        int at = b.arrayOffset() + b.position();
        b.position(b.position() + n);
        // Fast path: the JDK's decoder (ASCII intrinsics) replaces malformed input with U+FFFD; only when
        // that character shows up is the strict decoder asked whether the input was malformed.
        String fast = new String(b.array(), at, n, StandardCharsets.UTF_8);
        if (fast.indexOf('\uFFFD') < 0) {
            return fast;
        }
        try {
            // Strict (REPORT) decoding: the MAC vouches for the bytes, this for the code that wrote them.
            CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(b.array(), at, n));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new MalformedRecordException("bad utf-8");
        }
    }

    /** A growable little writer; the record's own validation already bounds every field. */
    private static final class Writer {
        private ByteBuffer buf = ByteBuffer.allocate(4096);

        void header(byte kind, long generation) {
            buf.put((byte) 'D').put((byte) 'R').put(kind).put((byte) InstanceRecord.CURRENT_FORMAT).putLong(generation);
        }

        void string(String s) {
            // Record validation rejects lone surrogates, so this encoding is lossless.
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            ensure(4 + bytes.length);
            buf.putInt(bytes.length).put(bytes);
        }

        void optional(Optional<String> s) {
            bool(s.isPresent());
            s.ifPresent(this::string);
        }

        void bool(boolean v) {
            ensure(1);
            buf.put(v ? (byte) 1 : (byte) 0);
        }

        byte[] seal(RecordMac mac, String key) {
            ensure(8 + RecordMac.MAC_BYTES);
            int bodyLength = buf.position();
            byte[] out = new byte[bodyLength + RecordMac.MAC_BYTES];
            buf.flip();
            buf.get(out, 0, bodyLength);
            mac.sign(key, out, bodyLength);
            return out;
        }

        private void ensure(int more) {
            // 8 spare bytes so that the fixed-size puts between strings never overflow.
            if (buf.remaining() < more + 8) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more + 64));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
        }
    }
}
