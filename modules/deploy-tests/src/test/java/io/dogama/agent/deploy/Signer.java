package io.dogama.agent.deploy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs requests as SPEC section 3 says, written from the spec and checked against the shared
 * vectors (SignerTest), independent of the agent's own code.
 */
final class Signer {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] key;

    Signer(String secretLine) {
        this.key = Base64.getUrlDecoder().decode(secretLine);
    }

    /** A fresh secret-file line: base64url of 32 random bytes. */
    static String randomSecretLine() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    Map<String, String> headers(String method, String rawPath, byte[] body) {
        byte[] nonce = new byte[18];
        RANDOM.nextBytes(nonce);
        return headers(method, rawPath, body, Instant.now().truncatedTo(ChronoUnit.SECONDS),
                Base64.getUrlEncoder().withoutPadding().encodeToString(nonce));
    }

    Map<String, String> headers(String method, String rawPath, byte[] body, Instant timestamp, String nonce) {
        String ts = timestamp.toString();
        try {
            String canonical = String.join("\n", "DOGAMA-HMAC-V1", method, rawPath, ts, nonce,
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            String signature = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Authorization", "DoGaMa-HMAC-SHA256 " + signature);
            h.put("X-DoGaMa-Timestamp", ts);
            h.put("X-DoGaMa-Nonce", nonce);
            return h;
        } catch (GeneralSecurityException e) {
            throw new AssertionError("the JDK lacks HMAC-SHA256: " + e, e);
        }
    }
}
