package io.dogama.agent.registry.internal;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA-256 of a stored value, bound to its map key: {@code HMAC(key, DOMAIN || len(mapKey) || mapKey
 * || body)}. Binding the key means a valid record copied under another instance ID fails verification.
 * Thread-safe: every call works on its own clone of an initialized prototype (the agent serves requests on
 * virtual threads, so a per-thread {@link Mac} would be rebuilt for nearly every call).
 */
final class RecordMac {
    static final String ALGORITHM = "HmacSHA256";
    static final int MAC_BYTES = 32;
    static final int KEY_BYTES = 32;
    private static final byte[] DOMAIN = "dogama-registry-record-v1\0".getBytes(StandardCharsets.US_ASCII);

    private final Mac prototype;

    /**
     * @param key the raw key, {@value #KEY_BYTES} bytes; copied
     */
    RecordMac(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("registry: key must be " + KEY_BYTES + " bytes");
        }
        SecretKeySpec spec = new SecretKeySpec(key, ALGORITHM);
        this.prototype = newMac(spec);
    }

    private static Mac newMac(SecretKeySpec spec) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(spec);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("registry: HMAC-SHA-256 unavailable", e);
        }
    }

    /** Writes the MAC of {@code buf[0, bodyLength)} under {@code mapKey} into {@code buf[bodyLength, +32)}. */
    void sign(String mapKey, byte[] buf, int bodyLength) {
        Mac mac = prepared(mapKey, buf, bodyLength);
        try {
            mac.doFinal(buf, bodyLength);
        } catch (ShortBufferException e) {
            throw new IllegalStateException("registry: MAC buffer too short", e);
        }
    }

    /** @return whether the last {@value #MAC_BYTES} bytes of {@code value} are its MAC under {@code mapKey} */
    boolean verify(String mapKey, byte[] value) {
        int bodyLength = value.length - MAC_BYTES;
        if (bodyLength < 0) {
            return false;
        }
        byte[] expected = prepared(mapKey, value, bodyLength).doFinal();
        byte[] actual = new byte[MAC_BYTES];
        System.arraycopy(value, bodyLength, actual, 0, MAC_BYTES);
        return MessageDigest.isEqual(expected, actual);
    }

    private Mac fresh() {
        try {
            synchronized (prototype) {
                return (Mac) prototype.clone();
            }
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("registry: HMAC-SHA-256 cannot be cloned", e);
        }
    }

    private Mac prepared(String mapKey, byte[] buf, int bodyLength) {
        Mac mac = fresh();
        byte[] k = mapKey.getBytes(StandardCharsets.UTF_8);
        mac.update(DOMAIN);
        mac.update(new byte[] {(byte) (k.length >>> 24), (byte) (k.length >>> 16), (byte) (k.length >>> 8),
                (byte) k.length});
        mac.update(k);
        mac.update(buf, 0, bodyLength);
        return mac;
    }

}
