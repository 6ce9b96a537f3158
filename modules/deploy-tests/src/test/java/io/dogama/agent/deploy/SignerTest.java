package io.dogama.agent.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The test signer reproduces every shared vector (a verbatim copy of shared/test-vectors/auth-hmac-v1.json). */
class SignerTest {
    @Test
    @SuppressWarnings("unchecked")
    void reproducesTheSharedVectors() throws IOException {
        Map<String, Object> file;
        try (InputStream in = SignerTest.class.getResourceAsStream("auth-hmac-v1.json")) {
            file = JSON.std.mapFrom(in);
        }
        Signer signer = new Signer((String) file.get("secretLine"));
        List<Map<String, Object>> vectors = (List<Map<String, Object>>) file.get("vectors");
        assertTrue(vectors.size() >= 4, "expected the shared vectors, found " + vectors.size());
        for (Map<String, Object> v : vectors) {
            Map<String, String> h = signer.headers((String) v.get("method"), (String) v.get("path"),
                    ((String) v.get("body")).getBytes(StandardCharsets.UTF_8), Instant.parse((String) v.get("timestamp")),
                    (String) v.get("nonce"));
            assertEquals(v.get("authorization"), h.get("Authorization"), "vector " + v.get("method") + " " + v.get("path"));
        }
    }

    @Test
    void anotherSecretGivesAnotherSignature() {
        Instant t = Instant.parse("2026-12-01T19:04:05Z");
        String a = new Signer(Signer.randomSecretLine()).headers("GET", "/v1/health", new byte[0], t, "AAAAAAAAAAAAAAAAAAAAAA")
                .get("Authorization");
        String b = new Signer(Signer.randomSecretLine()).headers("GET", "/v1/health", new byte[0], t, "AAAAAAAAAAAAAAAAAAAAAA")
                .get("Authorization");
        assertNotEquals(a, b);
    }
}
