package io.dogama.agent.auth.internal;

import io.dogama.agent.core.HmacSha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/** HMAC-SHA-256 over the canonical string, compared in constant time against each secret. */
public final class Signer {
    /** First line of the canonical string. */
    public static final String VERSION_LINE = "DOGAMA-HMAC-V1";

    private final List<HmacSha256> keys;

    /**
     * @param keys decoded secrets, current first; the caller may wipe them afterwards
     */
    public Signer(List<byte[]> keys) {
        List<HmacSha256> macs = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            macs.add(new HmacSha256(key));
        }
        this.keys = List.copyOf(macs);
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
        for (int i = keys.size() - 1; i >= 0; i--) {
            byte[] expected = Base64.getUrlEncoder().withoutPadding().encode(keys.get(i).mac(message));
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
        byte[] raw = keys.get(keyIndex).mac(canonical.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }
}
