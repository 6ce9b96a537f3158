package io.dogama.agent.auth;

import io.dogama.agent.auth.internal.Signer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * The client side of SPEC section 3, for the agent's own callers (the {@code health} command and the
 * self-check): signs a request with the CURRENT secret (line 1) and a fresh 128-bit nonce.
 */
public final class RequestSigner {
    /** Random bytes in a nonce: 16, i.e. 22 base64url characters. */
    public static final int NONCE_BYTES = 16;

    private final Signer signer;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    private RequestSigner(Signer signer, Clock clock) {
        this.signer = signer;
        this.clock = clock;
    }

    /**
     * @param secrets the loaded secret file; line 1 signs
     * @param clock   the clock giving the timestamp
     * @return a signer
     */
    public static RequestSigner create(Secrets secrets, Clock clock) {
        return new RequestSigner(new Signer(secrets.keys()), Objects.requireNonNull(clock, "clock"));
    }

    /**
     * Signs one request.
     *
     * @param method  upper-case method
     * @param rawPath the path exactly as it will be sent
     * @param body    the body bytes (empty for none)
     * @return the three headers, by name
     */
    public Map<String, String> headers(String method, String rawPath, byte[] body) {
        // Millisecond precision: a fresh nonce journal refuses requests timestamped before it began,
        // and a timestamp truncated to the second would be, for up to a second after a start.
        String timestamp = DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.MILLIS));
        byte[] n = new byte[NONCE_BYTES];
        random.nextBytes(n);
        String nonce = Base64.getUrlEncoder().withoutPadding().encodeToString(n);
        String canonical = Signer.canonical(method, rawPath, timestamp, nonce, sha256(body));
        return Map.of(Authenticator.AUTHORIZATION_HEADER, Authenticator.SCHEME + " " + signer.sign(canonical, 0),
                Authenticator.TIMESTAMP_HEADER, timestamp, Authenticator.NONCE_HEADER, nonce);
    }

    private static byte[] sha256(byte[] body) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("auth: SHA-256 unavailable", e);
        }
    }

    @Override
    public String toString() {
        return "RequestSigner[redacted]";
    }
}
