package io.dogama.agent.core;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Objects;

/**
 * HMAC-SHA-256 (RFC 2104 with SHA-256, FIPS 198-1): the agent's one MAC, for request signatures, the registry's
 * records and head, and the audit log's chain.
 *
 * <p>Built on the JDK's SHA-256 {@link MessageDigest} rather than {@code javax.crypto.Mac}: the first {@code Mac}
 * look-up instantiates every security provider listed ahead of SunJCE (SunEC parses its table of curves into
 * {@code BigInteger}s, SunJSSE registers its services) and reads the JCE policy files, about 18 ms of CPU in the
 * interpreter at every start on this machine (docs/performance.md, session 30), where SHA-256 comes from the first
 * provider in the list. The digest, and its intrinsics, are the same in both. The construction is RFC 2104's, no
 * more: a key longer than the block is hashed first, then padded with zeros to the block; the inner hash runs over
 * {@code key ^ 0x36..} and the message, the outer over {@code key ^ 0x5c..} and the inner hash. Tested against
 * RFC 4231's vectors and against {@code javax.crypto.Mac} on random keys and messages ({@code HmacSha256Test}).
 *
 * <p>An instance holds the two digests already past their padded key block, so that each MAC costs the same as
 * the JDK's (which keeps the same two states); it is immutable and may be shared between threads. Each
 * {@link Computation} is for one thread.
 */
public final class HmacSha256 {
    /** Bytes of a MAC. */
    public static final int LENGTH = 32;
    private static final int BLOCK = 64;
    private static final byte IPAD = 0x36;
    private static final byte OPAD = 0x5c;

    // Made in the constructor and never updated: only copied (a copy reads), so that sharing is safe.
    private final MessageDigest inner;
    private final MessageDigest outer;

    /**
     * @param key the key, any length (RFC 2104; the agent's keys are 32 bytes). The key is not kept, and the caller
     *            may wipe it; what is kept are the two digest states past the padded key, which, as in any HMAC
     *            implementation that prepares them, are as good as the key for making MACs.
     */
    public HmacSha256(byte[] key) {
        byte[] k = key.length > BLOCK ? hashed(key) : key;
        byte[] pad = new byte[BLOCK];
        try {
            for (int i = 0; i < BLOCK; i++) {
                pad[i] = (byte) ((i < k.length ? k[i] : 0) ^ IPAD);
            }
            this.inner = prepared(pad);
            for (int i = 0; i < BLOCK; i++) {
                pad[i] = (byte) ((i < k.length ? k[i] : 0) ^ OPAD);
            }
            this.outer = prepared(pad);
        } finally {
            Arrays.fill(pad, (byte) 0);
            if (k != key) {
                Arrays.fill(k, (byte) 0);
            }
        }
    }

    /** @return a new computation under this key */
    public Computation begin() {
        return new Computation(copy(inner), copy(outer));
    }

    /**
     * @param message the message
     * @return its MAC, {@value #LENGTH} bytes
     */
    public byte[] mac(byte[] message) {
        return begin().update(message).finish();
    }

    /** One MAC being computed: {@link #update} any number of times, then {@link #finish} once. */
    public static final class Computation {
        private final MessageDigest inner;
        private final MessageDigest outer;
        private boolean finished;

        private Computation(MessageDigest inner, MessageDigest outer) {
            this.inner = inner;
            this.outer = outer;
        }

        /**
         * @param bytes the next bytes of the message
         * @return this
         */
        public Computation update(byte[] bytes) {
            return update(bytes, 0, bytes.length);
        }

        /**
         * @param bytes  an array holding the next bytes of the message
         * @param offset where they start
         * @param length how many
         * @return this
         */
        public Computation update(byte[] bytes, int offset, int length) {
            if (finished) {
                throw new IllegalStateException("core: this HMAC is already finished");
            }
            inner.update(bytes, offset, length);
            return this;
        }

        /** @return the MAC, {@value #LENGTH} bytes */
        public byte[] finish() {
            byte[] mac = new byte[LENGTH];
            finish(mac, 0);
            return mac;
        }

        /**
         * @param out    where the MAC goes
         * @param offset at which index, with {@value #LENGTH} bytes free from there
         */
        public void finish(byte[] out, int offset) {
            if (finished) {
                throw new IllegalStateException("core: this HMAC is already finished");
            }
            Objects.checkFromIndexSize(offset, LENGTH, out.length);
            finished = true;
            outer.update(inner.digest());
            try {
                outer.digest(out, offset, LENGTH);
            } catch (DigestException e) {
                throw new IllegalStateException("core: SHA-256 refused a buffer of its own length", e);
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("core: SHA-256 is unavailable", e);
        }
    }

    /** @return the SHA-256 of a key longer than the block, the digest's scratch cleared (see {@link #prepared}) */
    private static byte[] hashed(byte[] key) {
        MessageDigest d = sha256();
        byte[] k = d.digest(key);
        d.reset();
        return k;
    }

    /**
     * @return a digest past {@code block}. A copy of the one that hashed it: the JDK's SHA-256 keeps the last block's
     *         message schedule (here the padded key) in a scratch array, which a copy does not take and which
     *         {@code reset} clears in the original.
     */
    private static MessageDigest prepared(byte[] block) {
        MessageDigest d = sha256();
        d.update(block);
        MessageDigest kept = copy(d);
        d.reset();
        return kept;
    }

    private static MessageDigest copy(MessageDigest d) {
        try {
            return (MessageDigest) d.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("core: the SHA-256 digest cannot be copied", e);
        }
    }
}
