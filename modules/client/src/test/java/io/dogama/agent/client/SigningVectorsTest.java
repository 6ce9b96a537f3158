package io.dogama.agent.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The client's signer against every vector of the repository's {@code test-vectors/auth-hmac-v1.json}
 * (the shared contract's vectors, copied verbatim): the independent oracle, so the client is never
 * tested only against itself.
 */
class SigningVectorsTest {
    static Path vectors(String name) {
        String dir = System.getProperty("dogama.vectors.dir");
        Path p = dir != null ? Path.of(dir, name) : Path.of("../../test-vectors", name);
        assertTrue(Files.isRegularFile(p), "test vector file missing: " + p);
        return p;
    }

    @Test
    @SuppressWarnings("unchecked")
    void reproducesEveryVector() throws Exception {
        Map<String, Object> doc = JSON.std.mapFrom(Files.readString(vectors("auth-hmac-v1.json")));
        RequestSigner signer = RequestSigner.of((String) doc.get("secretLine"));
        List<Map<String, Object>> list = (List<Map<String, Object>>) doc.get("vectors");
        assertTrue(list.size() >= 5, "the vector file lost vectors");
        for (Map<String, Object> v : list) {
            byte[] body = ((String) v.get("body")).getBytes(StandardCharsets.UTF_8);
            String method = (String) v.get("method");
            String path = (String) v.get("path");
            String ts = (String) v.get("timestamp");
            String nonce = (String) v.get("nonce");
            assertEquals(v.get("bodySha256"), RequestSigner.sha256Hex(body), path);
            assertEquals(v.get("canonical"), RequestSigner.canonical(method, path, ts, nonce, body), path);
            SignedHeaders h = signer.sign(method, path, body, ts, nonce);
            assertEquals(v.get("authorization"), h.authorization(), path);
            assertEquals(ts, h.timestamp());
            assertEquals(nonce, h.nonce());
        }
    }

    @Test
    void timestampsHaveMillisecondsAlways() {
        assertEquals("2026-12-01T19:04:05.000Z", RequestSigner.timestamp(Instant.parse("2026-12-01T19:04:05Z")));
        assertEquals("2026-12-01T19:04:05.123Z",
                RequestSigner.timestamp(Instant.parse("2026-12-01T19:04:05.123456789Z")));
        RequestSigner s = RequestSigner.of("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
                Clock.fixed(Instant.parse("2026-01-02T03:04:05.678Z"), ZoneOffset.UTC));
        assertEquals("2026-01-02T03:04:05.678Z", s.sign("GET", "/v1/health", new byte[0]).timestamp());
    }

    @Test
    void noncesAreFreshAndWellFormed() {
        RequestSigner s = RequestSigner.of("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String n = s.sign("GET", "/v1/health", new byte[0]).nonce();
            assertTrue(n.matches("^[A-Za-z0-9_-]{22}$"), n);
            assertTrue(seen.add(n), "a nonce repeated");
        }
    }

    @Test
    void anyChangedInputChangesTheSignature() {
        RequestSigner s = RequestSigner.of("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
        byte[] b = "{}".getBytes(StandardCharsets.UTF_8);
        String base = s.sign("POST", "/v1/check-disk", b, "t", "AAAAAAAAAAAAAAAAAAAAAA").authorization();
        assertNotEquals(base, s.sign("PUT", "/v1/check-disk", b, "t", "AAAAAAAAAAAAAAAAAAAAAA").authorization());
        assertNotEquals(base, s.sign("POST", "/v1/check-ports", b, "t", "AAAAAAAAAAAAAAAAAAAAAA").authorization());
        assertNotEquals(base, s.sign("POST", "/v1/check-disk", b, "u", "AAAAAAAAAAAAAAAAAAAAAA").authorization());
        assertNotEquals(base, s.sign("POST", "/v1/check-disk", b, "t", "AAAAAAAAAAAAAAAAAAAAAB").authorization());
        assertNotEquals(base, s.sign("POST", "/v1/check-disk", "{ }".getBytes(StandardCharsets.UTF_8), "t",
                "AAAAAAAAAAAAAAAAAAAAAA").authorization());
    }

    @Test
    void shortOrMalformedSecretsAreRefusedWithoutEchoingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RequestSigner.of("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg"));
        assertTrue(!e.getMessage().contains("AAECAw"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RequestSigner.of("not*base64url!secret-value-here"));
        assertTrue(!e.getMessage().contains("secret-value"), e.getMessage());
        assertEquals("RequestSigner[redacted]", RequestSigner.of("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").toString());
    }
}
