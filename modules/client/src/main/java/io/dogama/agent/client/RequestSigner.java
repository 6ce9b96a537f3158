package io.dogama.agent.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs requests as SPEC section 3 says, for callers that send them with an HTTP stack of their own
 * ({@link DogamaClient} uses it for every call). Thread-safe.
 *
 * <p>The signature is base64url (no padding) of HMAC-SHA-256(secret, canonical), where canonical is the
 * six lines {@code DOGAMA-HMAC-V1}, method, raw path, timestamp, nonce and the lower-case hex SHA-256 of
 * the body, joined by LF without a trailing one.
 */
public final class RequestSigner {
    /** The scheme word of the Authorization header. */
    public static final String SCHEME = "DoGaMa-HMAC-SHA256";
    /** First line of the canonical string. */
    public static final String VERSION_LINE = "DOGAMA-HMAC-V1";
    /** Header carrying the signature. */
    public static final String AUTHORIZATION_HEADER = "Authorization";
    /** Header carrying the timestamp. */
    public static final String TIMESTAMP_HEADER = "X-DoGaMa-Timestamp";
    /** Header carrying the nonce. */
    public static final String NONCE_HEADER = "X-DoGaMa-Nonce";
    /** Random bytes per nonce: 16 (128 bits, the minimum of SPEC 3), i.e. 22 base64url characters. */
    public static final int NONCE_BYTES = 16;
    /** Fewest bytes a secret may decode to (SPEC 3). */
    public static final int MIN_SECRET_BYTES = 32;

    /**
     * RFC 3339 UTC with exactly three fraction digits. Milliseconds because an agent whose nonce journal
     * is fresh refuses requests timestamped before its start, which a whole-second timestamp can be for
     * up to a second.
     */
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter
            .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

    private final SecretKeySpec key;
    private final Clock clock;
    private final SecureRandom random;

    private RequestSigner(byte[] key, Clock clock) {
        this.key = new SecretKeySpec(key, "HmacSHA256");
        Arrays.fill(key, (byte) 0);
        this.clock = clock;
        this.random = new SecureRandom();
    }

    /**
     * @param secretLine line 1 of the agent's secret file: base64url (padding optional) of at least 32 bytes
     * @return a signer taking timestamps from the system clock
     * @throws IllegalArgumentException if the line is not base64url or decodes to fewer than 32 bytes (the
     *                                  message never contains the line)
     */
    public static RequestSigner of(String secretLine) {
        return of(secretLine, Clock.systemUTC());
    }

    /**
     * @param secretLine line 1 of the agent's secret file
     * @param clock      where timestamps come from
     * @return a signer
     * @throws IllegalArgumentException as {@link #of(String)}
     */
    public static RequestSigner of(String secretLine, Clock clock) {
        Objects.requireNonNull(secretLine, "secretLine");
        byte[] key;
        try {
            key = Base64.getUrlDecoder().decode(secretLine.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("client: the secret is not base64url", null);
        }
        if (key.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("client: the secret decodes to fewer than " + MIN_SECRET_BYTES + " bytes");
        }
        return new RequestSigner(key, Objects.requireNonNull(clock, "clock"));
    }

    /**
     * Signs with the clock's time and a fresh nonce from {@link SecureRandom}.
     *
     * @param method  upper-case method
     * @param rawPath path exactly as it will be sent
     * @param body    body bytes, empty for none
     * @return the headers
     */
    public SignedHeaders sign(String method, String rawPath, byte[] body) {
        return sign(method, rawPath, body, timestamp(Instant.now(clock)), nonce());
    }

    /**
     * Signs with the given timestamp and nonce, taken as they will be sent (no check: a test may want
     * malformed ones).
     *
     * @param method    upper-case method
     * @param rawPath   path exactly as it will be sent
     * @param body      body bytes, empty for none
     * @param timestamp the {@code X-DoGaMa-Timestamp} value
     * @param nonce     the {@code X-DoGaMa-Nonce} value
     * @return the headers
     */
    public SignedHeaders sign(String method, String rawPath, byte[] body, String timestamp, String nonce) {
        String canonical = canonical(method, rawPath, timestamp, nonce, body);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            String sig = B64URL.encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
            return new SignedHeaders(SCHEME + " " + sig, timestamp, nonce);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("client: HmacSHA256 unavailable", e);
        }
    }

    /** @return a fresh nonce: 16 bytes from a {@link SecureRandom}, base64url without padding */
    public String nonce() {
        byte[] b = new byte[NONCE_BYTES];
        random.nextBytes(b);
        return B64URL.encodeToString(b);
    }

    /**
     * @param instant a time
     * @return RFC 3339 UTC with milliseconds, e.g. {@code 2026-12-01T19:04:05.123Z}
     */
    public static String timestamp(Instant instant) {
        return TIMESTAMP.format(instant.truncatedTo(ChronoUnit.MILLIS));
    }

    /**
     * @param method    method
     * @param rawPath   raw path
     * @param timestamp timestamp value
     * @param nonce     nonce value
     * @param body      body bytes
     * @return the six canonical lines joined by LF, without a trailing LF
     */
    public static String canonical(String method, String rawPath, String timestamp, String nonce, byte[] body) {
        return String.join("\n", VERSION_LINE, method, rawPath, timestamp, nonce, sha256Hex(body));
    }

    /**
     * @param body bytes
     * @return lower-case hex SHA-256 of them
     */
    public static String sha256Hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("client: SHA-256 unavailable", e);
        }
    }

    @Override
    public String toString() {
        return "RequestSigner[redacted]";
    }
}
