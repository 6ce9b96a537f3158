package io.dogama.agent.registry.internal;

import io.dogama.agent.core.HmacSha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * HMAC-SHA-256 of a stored value, bound to its map key: {@code HMAC(key, DOMAIN || len(mapKey) || mapKey
 * || body)}. Binding the key means a valid record copied under another instance ID fails verification.
 * Thread-safe: every call makes its own computation from the shared key ({@link HmacSha256}).
 */
final class RecordMac {
    static final int MAC_BYTES = HmacSha256.LENGTH;
    static final int KEY_BYTES = 32;
    private static final byte[] DOMAIN = "dogama-registry-record-v1\0".getBytes(StandardCharsets.US_ASCII);

    private final HmacSha256 hmac;

    /**
     * @param key the raw key, {@value #KEY_BYTES} bytes; not kept
     */
    RecordMac(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("registry: key must be " + KEY_BYTES + " bytes");
        }
        this.hmac = new HmacSha256(key);
    }

    /** Writes the MAC of {@code buf[0, bodyLength)} under {@code mapKey} into {@code buf[bodyLength, +32)}. */
    void sign(String mapKey, byte[] buf, int bodyLength) {
        prepared(mapKey, buf, bodyLength).finish(buf, bodyLength);
    }

    /** @return whether the last {@value #MAC_BYTES} bytes of {@code value} are its MAC under {@code mapKey} */
    boolean verify(String mapKey, byte[] value) {
        int bodyLength = value.length - MAC_BYTES;
        if (bodyLength < 0) {
            return false;
        }
        byte[] expected = prepared(mapKey, value, bodyLength).finish();
        byte[] actual = new byte[MAC_BYTES];
        System.arraycopy(value, bodyLength, actual, 0, MAC_BYTES);
        return MessageDigest.isEqual(expected, actual);
    }

    private HmacSha256.Computation prepared(String mapKey, byte[] buf, int bodyLength) {
        byte[] k = mapKey.getBytes(StandardCharsets.UTF_8);
        return hmac.begin()
                .update(DOMAIN)
                .update(new byte[] {(byte) (k.length >>> 24), (byte) (k.length >>> 16), (byte) (k.length >>> 8),
                        (byte) k.length})
                .update(k)
                .update(buf, 0, bodyLength);
    }
}
