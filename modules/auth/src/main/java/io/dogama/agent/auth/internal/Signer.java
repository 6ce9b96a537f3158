package io.dogama.agent.auth.internal;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA-256 over the canonical string, compared in constant time against each secret. */
public final class Signer {
    /** First line of the canonical string. */
    public static final String VERSION_LINE = "DOGAMA-HMAC-V1";
    private static final String ALGORITHM = "HmacSHA256";

    private final List<Mac> prototypes;

    /**
     * @param keys decoded secrets, current first; the caller may wipe them afterwards
     */
    public Signer(List<byte[]> keys) {
        List<Mac> macs = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            macs.add(newMac(key));
        }
        this.prototypes = List.copyOf(macs);
    }

    /**
     * @param method     request method as received
     * @param rawPath    raw request path as received
     * @param timestamp  timestamp header value as received
     * @param nonce      nonce header value as received
     * @param bodySha256 SHA-256 of the raw body, 32 bytes
     * @return the six canonical lines joined by LF, no trailing newline
     */
    public static String canonical(String method, String rawPath, String timestamp, String nonce, byte[] bodySha256) {
        if (bodySha256.length != 32) {
            throw new IllegalArgumentException("auth: a SHA-256 digest has 32 bytes");
        }
        return VERSION_LINE + '\n' + method + '\n' + rawPath + '\n' + timestamp + '\n' + nonce + '\n'
                + HexFormat.of().formatHex(bodySha256);
    }

    /**
     * Tells which secret, if any, produced the signature. Every secret is tried, whatever the result of
     * the first, so that the time taken does not depend on which one matches.
     *
     * @param canonical the canonical string
     * @param signature the base64url signature as sent
     * @return the index of the matching secret (0 current, 1 previous), or -1
     */
    public int match(String canonical, String signature) {
        byte[] message = canonical.getBytes(StandardCharsets.UTF_8);
        byte[] given = signature.getBytes(StandardCharsets.US_ASCII);
        int matched = -1;
        for (int i = prototypes.size() - 1; i >= 0; i--) {
            byte[] expected = Base64.getUrlEncoder().withoutPadding().encode(mac(i).doFinal(message));
            // Comparing the encoded form also refuses non-canonical spellings of the same bytes.
            if (MessageDigest.isEqual(expected, given)) {
                matched = i;
            }
        }
        return matched;
    }

    /**
     * @param canonical canonical string
     * @param keyIndex  0 for the current secret
     * @return the base64url signature; for tests and client tooling
     */
    public String sign(String canonical, int keyIndex) {
        byte[] raw = mac(keyIndex).doFinal(canonical.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    private Mac mac(int index) {
        try {
            // A clone of an initialised Mac skips the provider look-up and key schedule on every request.
            return (Mac) prototypes.get(index).clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("auth: HmacSHA256 provider cannot clone", e);
        }
    }

    private static Mac newMac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("auth: HmacSHA256 is unavailable", e);
        }
    }
}
