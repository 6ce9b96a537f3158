package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tests' own signer against /work/shared/test-vectors/auth-hmac-v1.json (SPEC section 3). */
class SignerTest {
    @Test
    void everySharedVectorSignsAsPublished() throws Exception {
        Map<String, Object> doc = Json.parse(RepoLayout.sharedVector("auth-hmac-v1.json"));
        Signer signer = new Signer((String) doc.get("secretLine"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> vectors = (List<Map<String, Object>>) doc.get("vectors");
        assertTrue(vectors.size() >= 5, "the vector file lost its vectors");
        for (Map<String, Object> v : vectors) {
            byte[] body = ((String) v.get("body")).getBytes(StandardCharsets.UTF_8);
            String method = (String) v.get("method");
            String path = (String) v.get("path");
            String ts = (String) v.get("timestamp");
            String nonce = (String) v.get("nonce");
            assertEquals(v.get("bodySha256"), Signer.sha256Hex(body), path);
            assertEquals(v.get("canonical"), Signer.canonical(method, path, ts, nonce, body), path);
            assertEquals(v.get("authorization"), signer.authorization(method, path, ts, nonce, body), path);
        }
    }

    @Test
    void anyChangedInputChangesTheSignature() {
        Signer signer = new Signer("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8");
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        String base = signer.authorization("POST", "/v1/check-disk", "2026-12-01T19:04:05Z", "AAAAAAAAAAAAAAAAAAAAAA", body);
        assertNotEquals(base, signer.authorization("PUT", "/v1/check-disk", "2026-12-01T19:04:05Z", "AAAAAAAAAAAAAAAAAAAAAA", body));
        assertNotEquals(base, signer.authorization("POST", "/v1/check-ports", "2026-12-01T19:04:05Z", "AAAAAAAAAAAAAAAAAAAAAA", body));
        assertNotEquals(base, signer.authorization("POST", "/v1/check-disk", "2026-12-01T19:04:06Z", "AAAAAAAAAAAAAAAAAAAAAA", body));
        assertNotEquals(base, signer.authorization("POST", "/v1/check-disk", "2026-12-01T19:04:05Z", "AAAAAAAAAAAAAAAAAAAAAB", body));
        assertNotEquals(base, signer.authorization("POST", "/v1/check-disk", "2026-12-01T19:04:05Z", "AAAAAAAAAAAAAAAAAAAAAA",
                "{ }".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void noncesAreFreshAndWellFormed() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String n = Signer.nonce();
            assertTrue(n.matches("^[A-Za-z0-9_-]{22,64}$"), n);
            assertTrue(seen.add(n), "a nonce repeated");
        }
    }
}
