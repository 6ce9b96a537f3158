package io.dogama.agent.http;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Client-side signing for the tests, written from SPEC section 3 independently of the auth module. */
final class Signing {
    /** The vector file's secret line. */
    static final String SECRET_LINE;
    /** The vectors, each as a map of the JSON fields. */
    static final List<Map<String, Object>> VECTORS;
    /** Another valid secret. */
    static final String OTHER_LINE = Base64.getUrlEncoder().withoutPadding()
            .encodeToString("a different secret, 32 bytes or more".getBytes(StandardCharsets.US_ASCII));
    private static final AtomicLong COUNTER = new AtomicLong();

    static {
        try (InputStream in = Signing.class.getResourceAsStream("auth-hmac-v1.json")) {
            Map<String, Object> root = JSON.std.mapFrom(in);
            SECRET_LINE = (String) root.get("secretLine");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> vectors = (List<Map<String, Object>>) root.get("vectors");
            VECTORS = vectors;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Signing() {
    }

    /** A fresh, valid nonce: 24 base64url characters. */
    static String nonce() {
        return String.format("test-nonce-%013d", COUNTER.incrementAndGet());
    }

    static String authorization(String secretLine, String method, String path, String timestamp, String nonce,
            byte[] body) {
        try {
            String canonical = String.join("\n", "DOGAMA-HMAC-V1", method, path, timestamp, nonce,
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getUrlDecoder().decode(secretLine), "HmacSHA256"));
            return "DoGaMa-HMAC-SHA256 " + Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }
}
