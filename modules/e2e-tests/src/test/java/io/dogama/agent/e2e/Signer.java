package io.dogama.agent.e2e;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The client side of SPEC section 3, written from the specification alone (not from the agent's
 * auth module), so that the end-to-end tests check the agent against an independent reading.
 * {@link SignerTest} pins it to the shared vectors.
 */
final class Signer {
    /** The scheme word of the Authorization header. */
    static final String SCHEME = "DoGaMa-HMAC-SHA256";
    /** Random bytes per nonce: 128 bits, the minimum of SPEC 3, gives 22 base64url characters. */
    static final int NONCE_BYTES = 16;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

    private final byte[] key;

    /** @param secretLine line 1 of the secret file: base64url, padding optional */
    Signer(String secretLine) {
        this.key = Base64.getUrlDecoder().decode(secretLine.strip());
    }

    /** @return a fresh nonce: 16 random bytes, base64url without padding */
    static String nonce() {
        byte[] b = new byte[NONCE_BYTES];
        RANDOM.nextBytes(b);
        return B64URL.encodeToString(b);
    }

    /** @return lower-case hex SHA-256 of the bytes */
    static String sha256Hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    /** @return the six canonical lines joined by LF, no trailing newline */
    static String canonical(String method, String rawPath, String timestamp, String nonce, byte[] body) {
        return String.join("\n", "DOGAMA-HMAC-V1", method, rawPath, timestamp, nonce, sha256Hex(body));
    }

    /** @return the full Authorization header value */
    String authorization(String method, String rawPath, String timestamp, String nonce, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] sig = mac.doFinal(canonical(method, rawPath, timestamp, nonce, body)
                    .getBytes(StandardCharsets.UTF_8));
            return SCHEME + " " + B64URL.encodeToString(sig);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 missing from the JDK", e);
        }
    }
}
