package io.dogama.agent.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.dogama.agent.core.ProblemCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestSignerTest {
    private static final Vectors VECTORS = Vectors.load();

    @TempDir
    Path dir;

    @Test
    void signedRequestIsAcceptedOnceAndMatchesAnIndependentSignature() throws Exception {
        TestClock clock = TestClock.at("2026-12-01T19:04:05.678Z");
        Secrets secrets = SecretFile.load(Vectors.secretFile(dir, VECTORS.secretLine() + "\n"));
        Authenticator auth = Authenticator.create(secrets, clock, NonceStore.inMemory(10, clock));
        RequestSigner signer = RequestSigner.create(secrets, clock);
        byte[] body = "{\"timeoutSeconds\":1}".getBytes(StandardCharsets.UTF_8);

        Map<String, String> h = signer.headers("POST", "/v1/instances/a-1/stop", body);
        assertEquals("2026-12-01T19:04:05.678Z", h.get(Authenticator.TIMESTAMP_HEADER));
        assertEquals(RequestSigner.NONCE_BYTES * 4 / 3 + 1, h.get(Authenticator.NONCE_HEADER).length());
        assertEquals(AuthenticatorTest.sign(VECTORS.secretLine(), "POST", "/v1/instances/a-1/stop",
                h.get(Authenticator.TIMESTAMP_HEADER), h.get(Authenticator.NONCE_HEADER), body),
                h.get(Authenticator.AUTHORIZATION_HEADER));

        RequestHeaders headers = MapHeaders.signed(h.get(Authenticator.AUTHORIZATION_HEADER),
                h.get(Authenticator.TIMESTAMP_HEADER), h.get(Authenticator.NONCE_HEADER));
        byte[] digest = AuthenticatorTest.sha256(body);
        assertInstanceOf(AuthDecision.Accepted.class, auth.verify("POST", "/v1/instances/a-1/stop", headers, digest));
        assertEquals(new AuthDecision.Rejected(ProblemCode.REPLAYED_REQUEST),
                auth.verify("POST", "/v1/instances/a-1/stop", headers, digest));
    }

    @Test
    void everyRequestGetsAFreshNonceAndNoSecretLeaksThroughToString() throws Exception {
        TestClock clock = TestClock.at("2026-12-01T19:04:05Z");
        Secrets secrets = SecretFile.load(Vectors.secretFile(dir, VECTORS.secretLine() + "\n"));
        RequestSigner signer = RequestSigner.create(secrets, clock);
        assertNotEquals(signer.headers("GET", "/v1/health", new byte[0]).get(Authenticator.NONCE_HEADER),
                signer.headers("GET", "/v1/health", new byte[0]).get(Authenticator.NONCE_HEADER));
        assertFalse(signer.toString().contains(VECTORS.secretLine()));
    }
}
