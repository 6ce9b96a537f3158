package io.dogama.agent.client;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The three authentication headers of one request (SPEC section 3).
 *
 * @param authorization {@code DoGaMa-HMAC-SHA256 <signature>}
 * @param timestamp     the {@code X-DoGaMa-Timestamp} value
 * @param nonce         the {@code X-DoGaMa-Nonce} value
 */
public record SignedHeaders(String authorization, String timestamp, String nonce) {
    /** @throws NullPointerException if a component is null */
    public SignedHeaders {
        Objects.requireNonNull(authorization, "authorization");
        Objects.requireNonNull(timestamp, "timestamp");
        Objects.requireNonNull(nonce, "nonce");
    }

    /** @return header name to value, in the order Authorization, timestamp, nonce */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(RequestSigner.AUTHORIZATION_HEADER, authorization);
        m.put(RequestSigner.TIMESTAMP_HEADER, timestamp);
        m.put(RequestSigner.NONCE_HEADER, nonce);
        return m;
    }

    @Override
    public String toString() {
        return "SignedHeaders[timestamp=" + timestamp + ", nonce=" + nonce + "]";
    }
}
