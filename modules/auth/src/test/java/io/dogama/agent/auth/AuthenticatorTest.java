package io.dogama.agent.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.ProblemCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class AuthenticatorTest {
    private static final Vectors VECTORS = Vectors.load();
    private static final Vectors.Vector HEALTH = VECTORS.vectors().getFirst();
    private static final String OTHER_LINE = Base64.getUrlEncoder().withoutPadding().encodeToString(
            "another secret of at least 32 bytes!".getBytes(StandardCharsets.US_ASCII));

    @TempDir
    Path dir;
    private TestClock clock;
    private Authenticator auth;

    @BeforeEach
    void setUp() throws Exception {
        clock = TestClock.at("2026-01-01T00:00:00Z");
        auth = authenticator(VECTORS.secretLine(), 100);
    }

    private Authenticator authenticator(String secretFileContent, int capacity) throws Exception {
        Secrets secrets = SecretFile.load(Vectors.secretFile(dir, secretFileContent));
        return Authenticator.create(secrets, clock, NonceStore.inMemory(capacity, clock));
    }

    static byte[] sha256(byte[] body) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(body);
    }

    /** Signs independently of the code under test, with the JDK's Mac directly. */
    static String sign(String secretLine, String method, String path, String timestamp, String nonce, byte[] body)
            throws Exception {
        String canonical = String.join("\n", "DOGAMA-HMAC-V1", method, path, timestamp, nonce,
                HexFormat.of().formatHex(sha256(body)));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getUrlDecoder().decode(secretLine), "HmacSHA256"));
        return "DoGaMa-HMAC-SHA256 " + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
    }

    private AuthDecision verify(Vectors.Vector v, MapHeaders headers) throws Exception {
        return auth.verify(v.method(), v.path(), headers, sha256(v.bodyBytes()));
    }

    private static MapHeaders headers(Vectors.Vector v) {
        return MapHeaders.signed(v.authorization(), v.timestamp(), v.nonce());
    }

    private static void assertRejected(ProblemCode code, AuthDecision decision) {
        assertEquals(new AuthDecision.Rejected(code), decision);
    }

    static Stream<Vectors.Vector> vectors() {
        return VECTORS.vectors().stream();
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void canonicalStringAndBodyHashMatchTheVector(Vectors.Vector v) throws Exception {
        assertEquals(v.bodySha256(), HexFormat.of().formatHex(sha256(v.bodyBytes())));
        assertEquals(v.canonical(), Authenticator.canonical(v.method(), v.path(), v.timestamp(), v.nonce(),
                sha256(v.bodyBytes())));
        assertEquals(v.authorization(), sign(VECTORS.secretLine(), v.method(), v.path(), v.timestamp(), v.nonce(),
                v.bodyBytes()));
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void everyVectorIsAcceptedAtItsTimestamp(Vectors.Vector v) throws Exception {
        clock.set(Instant.parse(v.timestamp()));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertEquals(new AuthDecision.Accepted(false), verify(v, headers(v)));
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void everyVectorIsRejectedUnderAnotherSecret(Vectors.Vector v) throws Exception {
        clock.set(Instant.parse(v.timestamp()));
        auth = authenticator(OTHER_LINE, 100);
        assertRejected(ProblemCode.UNAUTHENTICATED, verify(v, headers(v)));
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void previousSecretIsStillAccepted(Vectors.Vector v) throws Exception {
        clock.set(Instant.parse(v.timestamp()));
        auth = authenticator(OTHER_LINE + "\n" + VECTORS.secretLine() + "\n", 100);
        assertEquals(new AuthDecision.Accepted(true), verify(v, headers(v)));
    }

    @Test
    void currentSecretOfATwoLineFileIsAccepted() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        auth = authenticator(VECTORS.secretLine() + "\n" + OTHER_LINE, 100);
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Authorization", "X-DoGaMa-Timestamp", "X-DoGaMa-Nonce"})
    void missingHeaderIsUnauthenticated(String name) throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        assertRejected(ProblemCode.UNAUTHENTICATED, verify(HEALTH, headers(HEALTH).remove(name)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Authorization", "X-DoGaMa-Timestamp", "X-DoGaMa-Nonce"})
    void duplicatedHeaderIsUnauthenticatedEvenWithIdenticalValues(String name) throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        MapHeaders h = headers(HEALTH);
        h.add(name, h.all(name).getFirst());
        assertRejected(ProblemCode.UNAUTHENTICATED, verify(HEALTH, h));
    }

    static Stream<String> wrongAuthorizations() {
        String sig = HEALTH.authorization().substring("DoGaMa-HMAC-SHA256 ".length());
        return Stream.of("dogama-hmac-sha256 " + sig, "DOGAMA-HMAC-SHA256 " + sig, "Bearer " + sig,
                "DoGaMa-HMAC-SHA256  " + sig, "DoGaMa-HMAC-SHA256\t" + sig, "DoGaMa-HMAC-SHA256 " + sig + "=",
                "DoGaMa-HMAC-SHA256 " + sig.substring(1), "DoGaMa-HMAC-SHA256 " + sig + "A", "DoGaMa-HMAC-SHA256",
                sig, "DoGaMa-HMAC-SHA256 " + sig.replace('_', '/'),
                "DoGaMa-HMAC-SHA256 " + sig.substring(0, 42) + (sig.charAt(42) == 'E' ? 'F' : 'E'));
    }

    @ParameterizedTest
    @MethodSource("wrongAuthorizations")
    void wrongSchemeOrMalformedSignatureIsUnauthenticated(String authorization) throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        assertRejected(ProblemCode.UNAUTHENTICATED,
                verify(HEALTH, headers(HEALTH).replace("Authorization", authorization)));
    }

    @Test
    void nonCanonicalSpellingOfTheSameSignatureBytesIsUnauthenticated() throws Exception {
        // The 43rd character carries 4 significant bits; flipping a padding bit keeps the decoded bytes.
        String sig = HEALTH.authorization().substring("DoGaMa-HMAC-SHA256 ".length());
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char last = sig.charAt(42);
        String sibling = sig.substring(0, 42) + alphabet.charAt(alphabet.indexOf(last) ^ 1);
        assertEquals(HexFormat.of().formatHex(Base64.getUrlDecoder().decode(sig)),
                HexFormat.of().formatHex(Base64.getUrlDecoder().decode(sibling)));
        clock.set(Instant.parse(HEALTH.timestamp()));
        assertRejected(ProblemCode.UNAUTHENTICATED,
                verify(HEALTH, headers(HEALTH).replace("Authorization", "DoGaMa-HMAC-SHA256 " + sibling)));
    }

    @Test
    void anyChangeToASignedPartIsUnauthenticated() throws Exception {
        Vectors.Vector v = VECTORS.vectors().get(1);
        clock.set(Instant.parse(v.timestamp()));
        byte[] digest = sha256(v.bodyBytes());
        MapHeaders h = headers(v);
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify("PUT", v.path(), h, digest));
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify("post", v.path(), h, digest));
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify(v.method(), v.path() + "/", h, digest));
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify(v.method(), "/v1/instances/mc-0002/stop", h, digest));
        assertRejected(ProblemCode.UNAUTHENTICATED,
                auth.verify(v.method(), v.path(), h, sha256("{\"timeoutSeconds\":11}".getBytes(StandardCharsets.UTF_8))));
        assertRejected(ProblemCode.UNAUTHENTICATED,
                auth.verify(v.method(), v.path(), headers(v).replace("X-DoGaMa-Timestamp", "2026-12-01T19:04:06Z"), digest));
        assertRejected(ProblemCode.UNAUTHENTICATED,
                auth.verify(v.method(), v.path(), headers(v).replace("X-DoGaMa-Nonce", v.nonce() + "A"), digest));
        // Same instant, another spelling: the signature covers the header value exactly as sent.
        assertRejected(ProblemCode.UNAUTHENTICATED,
                auth.verify(v.method(), v.path(), headers(v).replace("X-DoGaMa-Timestamp", "2026-12-01T19:04:05.000Z"),
                        digest));
        // Nothing was remembered by the rejections: the genuine request still passes.
        assertEquals(new AuthDecision.Accepted(false), auth.verify(v.method(), v.path(), h, digest));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-12-01T19:04:05+00:00", "2026-12-01T19:04:05z", "2026-12-01t19:04:05Z",
            "2026-12-01 19:04:05Z", "2026-12-01T19:04Z", "2026-12-01T19:04:05", "2026-02-30T19:04:05Z",
            "2026-12-01T24:00:00Z", "2026-12-31T23:59:60Z", "2026-12-01T19:60:05Z", "2026-13-01T19:04:05Z", "2026-12-01T19:04:05.Z", "2026-12-01T19:04:05.1234567890Z",
            " 2026-12-01T19:04:05Z", "+2026-12-01T19:04:05Z", "１2026-12-01T19:04:05Z", "1764615845"})
    void malformedTimestampIsUnauthenticatedEvenWhenSigned(String timestamp) throws Exception {
        clock.set(Instant.parse("2026-12-01T19:04:05Z"));
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", timestamp, HEALTH.nonce(), new byte[0]);
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify("GET", "/v1/health",
                MapHeaders.signed(authorization, timestamp, HEALTH.nonce()), sha256(new byte[0])));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-12-01T19:04:05.5Z", "2026-12-01T19:04:05.123Z", "2026-12-01T19:04:05.123456789Z"})
    void fractionalSecondsAreAccepted(String timestamp) throws Exception {
        clock.set(Instant.parse("2026-12-01T19:04:05Z"));
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", timestamp, HEALTH.nonce(), new byte[0]);
        assertEquals(new AuthDecision.Accepted(false), auth.verify("GET", "/v1/health",
                MapHeaders.signed(authorization, timestamp, HEALTH.nonce()), sha256(new byte[0])));
    }

    @ParameterizedTest
    @ValueSource(strings = {"AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAA+/AA", "AAAAAAAAAAAAAAAAAAAA AAA",
            "AAAAAAAAAAAAAAAAAAAAAA\u00e9", ""})
    void malformedNonceIsUnauthenticatedEvenWhenSigned(String nonce) throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", HEALTH.timestamp(), nonce, new byte[0]);
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify("GET", "/v1/health",
                MapHeaders.signed(authorization, HEALTH.timestamp(), nonce), sha256(new byte[0])));
    }

    @ParameterizedTest
    @ValueSource(ints = {22, 23, 24, 63, 64})
    void nonceLengthsInsideTheRangeAreAccepted(int length) throws Exception {
        String nonce = "q".repeat(length);
        clock.set(Instant.parse(HEALTH.timestamp()));
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", HEALTH.timestamp(), nonce, new byte[0]);
        assertEquals(new AuthDecision.Accepted(false), auth.verify("GET", "/v1/health",
                MapHeaders.signed(authorization, HEALTH.timestamp(), nonce), sha256(new byte[0])));
    }

    @Test
    void controlCharactersInMethodOrPathAreUnauthenticated() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        for (String path : List.of("/v1/health\nX", "/v1/he alth", "")) {
            String authorization = sign(VECTORS.secretLine(), "GET", path, HEALTH.timestamp(), HEALTH.nonce(),
                    new byte[0]);
            assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify("GET", path,
                    MapHeaders.signed(authorization, HEALTH.timestamp(), HEALTH.nonce()), sha256(new byte[0])));
        }
        // Signed as sent, so only the syntax check refuses them (Helidon's parser refuses such a request line
        // before the authenticator sees it, so no HTTP test reaches this).
        for (String method : List.of("GET\nX", "G ET", "GET\u007f", "GET\u0000", "")) {
            String authorization = sign(VECTORS.secretLine(), method, "/v1/health", HEALTH.timestamp(),
                    HEALTH.nonce(), new byte[0]);
            assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify(method, "/v1/health",
                    MapHeaders.signed(authorization, HEALTH.timestamp(), HEALTH.nonce()), sha256(new byte[0])));
        }
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", HEALTH.timestamp(), HEALTH.nonce(),
                new byte[0]);
        assertEquals(new AuthDecision.Accepted(false), auth.verify("GET", "/v1/health",
                MapHeaders.signed(authorization, HEALTH.timestamp(), HEALTH.nonce()), sha256(new byte[0])),
                "the same request with a clean method and path is accepted");
    }

    /**
     * A nonce the journal could not make durable is never an acceptance: a journal that failed answers
     * {@code internal_error}, one that did not answer in time {@code busy} (the request may be retried; its nonce
     * stays remembered). Both on the real journal: closed (as after a failed force, nothing is admitted any more),
     * and a request thread interrupted while it waits for the force (the server's forced stop does that).
     */
    @Test
    void aNonceTheJournalCouldNotMakeDurableIsNeverAccepted() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        Secrets secrets = SecretFile.load(Vectors.secretFile(dir, VECTORS.secretLine()));
        Path data = Files.createDirectories(dir.resolve("data"));
        NonceStore store = NonceStore.persistent(data, 100, clock); // closed on purpose below, and again (idempotent)
        try {
            Authenticator journaled = Authenticator.create(secrets, clock, store);
            Thread.currentThread().interrupt();
            AuthDecision interrupted;
            try {
                interrupted = health(journaled, "nonce-interrupted-0001");
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            }
            assertRejected(ProblemCode.BUSY, interrupted, "not durable in time");
            assertRejected(ProblemCode.REPLAYED_REQUEST, health(journaled, "nonce-interrupted-0001"),
                    "a nonce refused busy stays remembered");
            store.close();
            assertRejected(ProblemCode.INTERNAL_ERROR, health(journaled, "nonce-after-failure-01"),
                    "a journal that failed");
        } finally {
            store.close();
        }
        try (NonceStore reopened = NonceStore.persistent(data, 100, clock)) {
            Authenticator again = Authenticator.create(secrets, clock, reopened);
            assertEquals(new AuthDecision.Accepted(false), health(again, "nonce-after-failure-01"),
                    "the same request on a working journal is accepted");
            assertRejected(ProblemCode.REPLAYED_REQUEST, health(again, "nonce-interrupted-0001"),
                    "the nonce refused busy was journaled after all");
        }
    }

    private static AuthDecision health(Authenticator a, String nonce) throws Exception {
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", HEALTH.timestamp(), nonce,
                new byte[0]);
        return a.verify("GET", "/v1/health", MapHeaders.signed(authorization, HEALTH.timestamp(), nonce),
                sha256(new byte[0]));
    }

    private static void assertRejected(ProblemCode code, AuthDecision decision, String message) {
        assertEquals(new AuthDecision.Rejected(code), decision, message);
    }

    @Test
    void skewOfExactlyTheWindowIsAcceptedEitherWay() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).minusSeconds(3600));
        auth = authenticator(VECTORS.secretLine(), 100);
        clock.set(Instant.parse(HEALTH.timestamp()).plus(Authenticator.WINDOW));
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)));

        Vectors.Vector v = VECTORS.vectors().get(1);
        clock.set(Instant.parse(v.timestamp()).minus(Authenticator.WINDOW));
        assertEquals(new AuthDecision.Accepted(false), verify(v, headers(v)));
    }

    @Test
    void requestOlderThanTheWindowIsStale() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).minusSeconds(3600));
        auth = authenticator(VECTORS.secretLine(), 100);
        clock.set(Instant.parse(HEALTH.timestamp()).plus(Authenticator.WINDOW).plusMillis(1));
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    /** SPEC 3.3: "within 30 seconds of the agent's clock, either way": the edges themselves are inside. */
    @Test
    void aRequestExactlyAtEitherEdgeOfTheWindowIsAccepted() throws Exception {
        Instant signed = Instant.parse(HEALTH.timestamp());
        for (Instant now : List.of(signed.plus(Authenticator.WINDOW), signed.minus(Authenticator.WINDOW))) {
            clock.set(signed.minusSeconds(3600));
            auth = authenticator(VECTORS.secretLine(), 100);
            clock.set(now);
            assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)), "at " + now);
        }
    }

    /** A caller that has no method or path (never Helidon, but the contract is "never throws") is refused. */
    @Test
    void aRequestWithoutMethodOrPathIsUnauthenticated() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        byte[] body = sha256(HEALTH.bodyBytes());
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify(null, HEALTH.path(), headers(HEALTH), body));
        assertRejected(ProblemCode.UNAUTHENTICATED, auth.verify(HEALTH.method(), null, headers(HEALTH), body));
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)), "its nonce was not spent");
    }

    @Test
    void requestFromTheFutureBeyondTheWindowIsStale() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).minus(Authenticator.WINDOW).minusMillis(1));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    /**
     * A signed request timestamped past the window ahead of the agent's clock is refused, and its nonce is
     * remembered: once the agent's clock catches up, the same bytes (recorded by anyone on the way) would
     * otherwise be fresh and accepted, although the control plane was told the request failed.
     */
    @Test
    void aRequestFromTheFutureRefusedAsStaleCannotBeReplayedOnceItsTimeComes() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).minusSeconds(45));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
        clock.advance(Duration.ofSeconds(20));
        assertRejected(ProblemCode.REPLAYED_REQUEST, verify(HEALTH, headers(HEALTH)));
        clock.advance(Duration.ofSeconds(25));
        assertRejected(ProblemCode.REPLAYED_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    /** Beyond {@link Authenticator#FUTURE_MEMORY} ahead the nonce is not remembered (the README says so). */
    @Test
    void aRequestFromBeyondTheFutureMemoryTakesNoPlaceInTheMemory() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).minus(Authenticator.FUTURE_MEMORY).minusSeconds(1));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
        clock.set(Instant.parse(HEALTH.timestamp()));
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)));
    }

    @Test
    void signatureIsCheckedBeforeSkew() throws Exception {
        // A stale request with a bad signature must not reveal that the timestamp was the problem.
        clock.set(Instant.parse(HEALTH.timestamp()).plusSeconds(3600));
        auth = authenticator(OTHER_LINE, 100);
        assertRejected(ProblemCode.UNAUTHENTICATED, verify(HEALTH, headers(HEALTH)));
    }

    @Test
    void replayIsRefusedAndStaleComesFirst() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)));
        assertRejected(ProblemCode.REPLAYED_REQUEST, verify(HEALTH, headers(HEALTH)));
        clock.advance(Duration.ofSeconds(29));
        assertRejected(ProblemCode.REPLAYED_REQUEST, verify(HEALTH, headers(HEALTH)));
        clock.advance(Duration.ofSeconds(2));
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    @Test
    void replayWithinTheWindowIsRefusedEvenWhenTheClockWentBack() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()));
        auth = authenticator(VECTORS.secretLine(), 100);
        clock.advance(Duration.ofSeconds(30));
        assertEquals(new AuthDecision.Accepted(false), verify(HEALTH, headers(HEALTH)));
        clock.advance(Duration.ofSeconds(-60));
        assertRejected(ProblemCode.REPLAYED_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    @Test
    void requestTimestampedBeforeAnInMemoryStoreBeganIsStale() throws Exception {
        clock.set(Instant.parse(HEALTH.timestamp()).plusMillis(1));
        auth = authenticator(VECTORS.secretLine(), 100);
        assertRejected(ProblemCode.STALE_REQUEST, verify(HEALTH, headers(HEALTH)));
    }

    @Test
    void fullNonceMemoryAnswersBusyUntilNoncesExpire() throws Exception {
        Instant t0 = Instant.parse("2026-12-01T19:04:05Z");
        clock.set(t0);
        auth = authenticator(VECTORS.secretLine(), 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(new AuthDecision.Accepted(false), signedHealth("nonce-number-" + i + "-aaaaaaaa", t0));
        }
        assertRejected(ProblemCode.BUSY, signedHealth("nonce-number-3-aaaaaaaa", t0));
        // A known nonce is still recognised as a replay while full.
        assertRejected(ProblemCode.REPLAYED_REQUEST, signedHealth("nonce-number-0-aaaaaaaa", t0));
        // At expiry (timestamp + retention) and until that second has passed, nothing is forgotten.
        clock.set(t0.plus(NonceStore.RETENTION));
        assertRejected(ProblemCode.BUSY, signedHealth("nonce-number-4-aaaaaaaa", t0.plus(NonceStore.RETENTION)));
        Instant lastMoment = t0.plus(NonceStore.RETENTION).plusMillis(999);
        clock.set(lastMoment);
        assertRejected(ProblemCode.BUSY, signedHealth("nonce-number-5-aaaaaaaa", lastMoment));
        // The next second drops the whole bucket.
        Instant next = t0.plus(NonceStore.RETENTION).plusSeconds(1);
        clock.set(next);
        assertEquals(new AuthDecision.Accepted(false), signedHealth("nonce-number-6-aaaaaaaa", next));
        assertEquals(new AuthDecision.Accepted(false), signedHealth("nonce-number-0-aaaaaaaa", next));
    }

    private AuthDecision signedHealth(String nonce, Instant at) throws Exception {
        String timestamp = at.toString();
        String authorization = sign(VECTORS.secretLine(), "GET", "/v1/health", timestamp, nonce, new byte[0]);
        return auth.verify("GET", "/v1/health", MapHeaders.signed(authorization, timestamp, nonce),
                sha256(new byte[0]));
    }

    @Test
    void digestMustBe32Bytes() {
        assertThrows(IllegalArgumentException.class,
                () -> auth.verify("GET", "/v1/health", headers(HEALTH), new byte[31]));
    }

    @Test
    void rejectionCodesAreOnlyAuthenticationCodes() {
        assertThrows(IllegalArgumentException.class, () -> new AuthDecision.Rejected(ProblemCode.NOT_FOUND));
        assertInstanceOf(AuthDecision.Rejected.class, new AuthDecision.Rejected(ProblemCode.BUSY));
    }
}
