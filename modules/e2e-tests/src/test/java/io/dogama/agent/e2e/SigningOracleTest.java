package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.client.RequestSigner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The independent oracles of the client's signing (SPEC section 3), so that the client that the
 * end-to-end tests use is never checked only against itself: the shared test vectors
 * (/work/shared/test-vectors, via the repository's verbatim copy), and scripts/dogama-curl (bash and
 * openssl, written apart from any Java) on random requests.
 */
class SigningOracleTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void theClientReproducesEverySharedVector() {
        Map<String, Object> doc = Json.parse(RepoLayout.sharedVector("auth-hmac-v1.json"));
        RequestSigner signer = RequestSigner.of((String) doc.get("secretLine"));
        List<Object> vectors = Json.array(doc.get("vectors"));
        assertTrue(vectors.size() >= 5, "the vector file lost its vectors");
        for (Object o : vectors) {
            Map<String, Object> v = Json.object(o);
            byte[] body = ((String) v.get("body")).getBytes(StandardCharsets.UTF_8);
            String method = (String) v.get("method");
            String path = (String) v.get("path");
            String ts = (String) v.get("timestamp");
            String nonce = (String) v.get("nonce");
            assertEquals(v.get("bodySha256"), RequestSigner.sha256Hex(body), path);
            assertEquals(v.get("canonical"), RequestSigner.canonical(method, path, ts, nonce, body), path);
            assertEquals(v.get("authorization"), signer.sign(method, path, body, ts, nonce).authorization(), path);
        }
    }

    @Test
    void theClientAndDogamaCurlSignRandomRequestsAlike(@TempDir Path dir) throws Exception {
        byte[] key = new byte[32 + RANDOM.nextInt(16)];
        RANDOM.nextBytes(key);
        String line = Base64.getUrlEncoder().withoutPadding().encodeToString(key);
        Path secret = dir.resolve("hmac");
        Files.writeString(secret, line + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        RequestSigner signer = RequestSigner.of(line);
        List<String[]> requests = List.of(
                new String[] {"GET", "/v1/health", ""},
                new String[] {"POST", "/v1/instances", "{\"instanceId\":\"x-" + RANDOM.nextInt(1000) + "\",\"env\":{\"A\":\"café ☃\"}}"},
                new String[] {"PUT", "/v1/instances/demo-1", "{\"plan\":{},\"expectedRevision\":" + RANDOM.nextInt(99) + "}"},
                new String[] {"DELETE", "/v1/instances/demo-1", ""});
        for (String[] r : requests) {
            String ts = RequestSigner.timestamp(java.time.Instant.now());
            String nonce = signer.nonce();
            ProcessBuilder pb = new ProcessBuilder("bash", RepoLayout.root().resolve("scripts/dogama-curl").toString(),
                    r[0], r[1], r[2]);
            pb.environment().keySet().removeIf(k -> k.startsWith("DOGAMA_"));
            pb.environment().putAll(Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_CURL_PRINT_ONLY", "1",
                    "DOGAMA_CURL_TIMESTAMP", ts, "DOGAMA_CURL_NONCE", nonce));
            pb.redirectErrorStream(true);
            Process p = pb.start();
            p.getOutputStream().close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "dogama-curl hangs");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(0, p.exitValue(), out);
            assertEquals(out, signer.sign(r[0], r[1], r[2].getBytes(StandardCharsets.UTF_8), ts, nonce).authorization(),
                    r[0] + " " + r[1]);
        }
    }
}
