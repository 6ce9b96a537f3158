package io.dogama.agent.auth;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/** The shared HMAC test vectors (a verbatim copy of shared/test-vectors/auth-hmac-v1.json). */
record Vectors(String secretLine, List<Vector> vectors) {

    record Vector(String method, String path, String timestamp, String nonce, String body, String bodySha256,
            String canonical, String authorization) {
        byte[] bodyBytes() {
            return body.getBytes(StandardCharsets.UTF_8);
        }
    }

    @SuppressWarnings("unchecked")
    static Vectors load() {
        try (InputStream in = Vectors.class.getResourceAsStream("auth-hmac-v1.json")) {
            if (in == null) {
                throw new IllegalStateException("test vectors resource missing");
            }
            Map<String, Object> root = JSON.std.mapFrom(in);
            List<Vector> list = ((List<Map<String, Object>>) root.get("vectors")).stream()
                    .map(v -> new Vector((String) v.get("method"), (String) v.get("path"), (String) v.get("timestamp"),
                            (String) v.get("nonce"), (String) v.get("body"), (String) v.get("bodySha256"),
                            (String) v.get("canonical"), (String) v.get("authorization")))
                    .toList();
            return new Vectors((String) root.get("secretLine"), list);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a secret file with mode 0600. */
    static Path secretFile(Path dir, String content) throws IOException {
        Path file = dir.resolve("secret-" + System.nanoTime());
        Files.writeString(file, content, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
