package io.dogama.agent.auth;

import io.dogama.agent.auth.internal.HeaderSyntax;
import io.dogama.agent.auth.internal.Signer;
import io.dogama.agent.core.ProblemCode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Verifies request signatures and defends against replay (SPEC section 3, steps 2 to 4).
 *
 * <p>Each request carries {@value #AUTHORIZATION_HEADER}{@code : }{@value #SCHEME}{@code  <signature>},
 * {@value #TIMESTAMP_HEADER} and {@value #NONCE_HEADER}. The signature is the unpadded base64url
 * HMAC-SHA-256, under the current or the previous secret, of {@link #canonical canonical string}.
 * The checks run in this order and stop at the first failure:
 * <ol>
 * <li>each of the three headers is present exactly once and well formed, the scheme is exactly
 *     {@value #SCHEME}, and the signature matches a secret (constant-time comparison): otherwise
 *     {@code unauthenticated}, with no hint which part failed;</li>
 * <li>the timestamp is at most {@link #WINDOW} away from the clock, either way: otherwise
 *     {@code stale_request};</li>
 * <li>the nonce is new: otherwise {@code replayed_request}; {@code busy} when the nonce memory is
 *     full or the disk did not take the nonce within {@link NonceStore#DURABLE_WAIT};
 *     {@code stale_request} when the request predates what the memory remembers;
 *     {@code internal_error} when the nonce could not be persisted.</li>
 * </ol>
 * Thread-safe.
 */
public final class Authenticator {
    /** Acceptance window, either way: 30 s. */
    public static final Duration WINDOW = Duration.ofSeconds(30);
    /**
     * 10 minutes: how far ahead of the agent's clock a correctly signed request may be timestamped and still
     * have its nonce remembered, although it is refused {@code stale_request}. The same bytes become fresh
     * once the agent's clock catches up, so whoever recorded them could send them then; remembered, they are
     * refused as replays. Only a request under the secret gets that far, so the memory this takes is bounded
     * by what the control plane itself sent. Beyond it (a clock off by more than that) the request is refused
     * but not remembered, and can be replayed once the agent's clock reaches it. This is a defence beyond SPEC
     * section 3 (which asks for the window only), and a best-effort one: such a nonce is not remembered either
     * when the memory is full or its journal's disk has fallen behind (the request is refused all the same),
     * and a journal lost or cut short is made up for the window alone (requests timestamped before the start
     * plus {@link #WINDOW} are refused), not for these ten minutes, which would refuse every request for as
     * long.
     */
    public static final Duration FUTURE_MEMORY = Duration.ofMinutes(10);
    /** The only accepted authorization scheme, compared exactly (case-sensitive). */
    public static final String SCHEME = "DoGaMa-HMAC-SHA256";
    /** Header carrying scheme and signature. */
    public static final String AUTHORIZATION_HEADER = "Authorization";
    /** Header carrying the RFC 3339 UTC timestamp, e.g. {@code 2026-12-01T19:04:05Z}. */
    public static final String TIMESTAMP_HEADER = "X-DoGaMa-Timestamp";
    /** Header carrying the base64url nonce, 22 to 64 characters. */
    public static final String NONCE_HEADER = "X-DoGaMa-Nonce";

    private static final AuthDecision UNAUTHENTICATED = new AuthDecision.Rejected(ProblemCode.UNAUTHENTICATED);
    private static final AuthDecision STALE = new AuthDecision.Rejected(ProblemCode.STALE_REQUEST);
    private static final AuthDecision BUSY = new AuthDecision.Rejected(ProblemCode.BUSY);

    private final Signer signer;
    private final Clock clock;
    private final NonceStore nonces;

    private Authenticator(Signer signer, Clock clock, NonceStore nonces) {
        this.signer = signer;
        this.clock = clock;
        this.nonces = nonces;
    }

    /**
     * @param secrets the secrets from {@link SecretFile#load}
     * @param clock   the agent's clock, for the skew check
     * @param nonces  the nonce memory; it must use the same clock
     * @return the authenticator
     */
    public static Authenticator create(Secrets secrets, Clock clock, NonceStore nonces) {
        Objects.requireNonNull(secrets, "secrets");
        List<byte[]> keys = secrets.keys();
        try {
            return new Authenticator(new Signer(keys), Objects.requireNonNull(clock, "clock"),
                    Objects.requireNonNull(nonces, "nonces"));
        } finally {
            keys.forEach(k -> Arrays.fill(k, (byte) 0));
        }
    }

    /**
     * The string that is signed: {@code DOGAMA-HMAC-V1}, method, raw path, timestamp, nonce and the
     * lower-case hex SHA-256 of the body, joined by LF, without a trailing newline.
     *
     * @param method     request method as sent, e.g. {@code POST}
     * @param rawPath    raw request path as sent, never decoded
     * @param timestamp  {@value #TIMESTAMP_HEADER} value as sent
     * @param nonce      {@value #NONCE_HEADER} value as sent
     * @param bodySha256 SHA-256 of the raw body bytes (of the empty string when there is no body), 32 bytes
     * @return the canonical string
     * @throws IllegalArgumentException if {@code bodySha256} is not 32 bytes
     */
    public static String canonical(String method, String rawPath, String timestamp, String nonce, byte[] bodySha256) {
        return Signer.canonical(method, rawPath, timestamp, nonce, bodySha256);
    }

    /**
     * Decides whether a request may proceed. On acceptance its nonce is remembered, so calling this
     * twice for one request rejects the second call as a replay.
     *
     * @param method     request method as received
     * @param rawPath    raw request path as received (no query; the caller refuses queries first)
     * @param headers    the request headers
     * @param bodySha256 SHA-256 of the raw body bytes, 32 bytes
     * @return the decision; never throws for a malformed request
     * @throws IllegalArgumentException if {@code bodySha256} is not 32 bytes
     */
    public AuthDecision verify(String method, String rawPath, RequestHeaders headers, byte[] bodySha256) {
        if (bodySha256.length != 32) {
            throw new IllegalArgumentException("auth: a SHA-256 digest has 32 bytes");
        }
        String authorization = single(headers, AUTHORIZATION_HEADER);
        String timestampValue = single(headers, TIMESTAMP_HEADER);
        String nonce = single(headers, NONCE_HEADER);
        if (authorization == null || timestampValue == null || nonce == null
                || method == null || rawPath == null) {
            return UNAUTHENTICATED;
        }
        String signature = HeaderSyntax.signature(authorization, SCHEME);
        Instant timestamp = HeaderSyntax.timestamp(timestampValue);
        if (signature == null || timestamp == null || !HeaderSyntax.nonce(nonce)
                || !HeaderSyntax.printable(method) || !HeaderSyntax.printable(rawPath)) {
            return UNAUTHENTICATED;
        }
        int secret = signer.match(Signer.canonical(method, rawPath, timestampValue, nonce, bodySha256), signature);
        if (secret < 0) {
            return UNAUTHENTICATED;
        }
        Instant now = clock.instant();
        Duration age = Duration.between(timestamp, now);
        if (age.abs().compareTo(WINDOW) > 0) {
            if (age.isNegative() && age.negated().compareTo(FUTURE_MEMORY) <= 0) {
                // Whatever the memory answers, the request is stale now; a full memory forgets nothing.
                nonces.admit(nonce, timestamp);
            }
            return STALE;
        }
        return switch (nonces.admit(nonce, timestamp)) {
            case ADMITTED -> new AuthDecision.Accepted(secret > 0);
            case REPLAYED -> new AuthDecision.Rejected(ProblemCode.REPLAYED_REQUEST);
            case FULL, STALLED -> BUSY;
            case BEFORE_MEMORY -> STALE;
            case FAILED -> new AuthDecision.Rejected(ProblemCode.INTERNAL_ERROR);
        };
    }

    private static String single(RequestHeaders headers, String name) {
        List<String> values = headers.all(name);
        return values != null && values.size() == 1 ? values.getFirst() : null;
    }

    /** @return a description without key material */
    @Override
    public String toString() {
        return "Authenticator[window=" + WINDOW + ", nonces=" + nonces.size() + "]";
    }
}
