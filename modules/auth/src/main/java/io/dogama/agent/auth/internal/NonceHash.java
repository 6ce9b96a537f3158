package io.dogama.agent.auth.internal;

import java.security.SecureRandom;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012) of a nonce's UTF-16LE code units under a key drawn once
 * per process: the 64-bit fingerprint the nonce table stores instead of the nonce.
 *
 * <p>Why keyed: the table is open-addressed, so inputs that share a home slot lengthen every probe
 * that passes them, and two nonces with one fingerprint are one nonce to the table (the second is
 * refused as a replay). With a secret key nobody can compute fingerprints offline, so neither
 * clusters nor collisions can be aimed; SipHash was designed for exactly this (hash flooding). Two
 * distinct nonces collide by chance with probability 2<sup>-64</sup>, and a collision only ever refuses
 * a request (never accepts a replay): at 2,000,000 remembered nonces that is one false refusal per
 * about 9 &times; 10<sup>12</sup> requests. The key is not persisted: a restart re-hashes the journal,
 * which holds the nonces themselves.
 */
final class NonceHash {
    private final long k0;
    private final long k1;

    /**
     * @param k0 first key half (little-endian bytes 0 to 7 of the 128-bit key)
     * @param k1 second key half (bytes 8 to 15)
     */
    NonceHash(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    /** @return a hash under a fresh key from {@link SecureRandom} */
    static NonceHash random() {
        SecureRandom random = new SecureRandom();
        return new NonceHash(random.nextLong(), random.nextLong());
    }

    /**
     * @param s any string (a nonce is ASCII; every code unit counts, so no two strings are merged by encoding)
     * @return SipHash-2-4 of the UTF-16LE bytes of {@code s}
     */
    long hash(String s) {
        long v0 = 0x736f6d6570736575L ^ k0;
        long v1 = 0x646f72616e646f6dL ^ k1;
        long v2 = 0x6c7967656e657261L ^ k0;
        long v3 = 0x7465646279746573L ^ k1;
        int len = s.length();
        int i = 0;
        for (; i + 4 <= len; i += 4) {
            long m = s.charAt(i) | (long) s.charAt(i + 1) << 16 | (long) s.charAt(i + 2) << 32
                    | (long) s.charAt(i + 3) << 48;
            v3 ^= m;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long m = (long) (2 * len & 0xff) << 56;
        for (int shift = 0; i < len; i++, shift += 16) {
            m |= (long) s.charAt(i) << shift;
        }
        v3 ^= m;
        for (int r = 0; r < 2; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= m;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
