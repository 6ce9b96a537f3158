package io.dogama.agent.http;

import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.SecretFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/** A real agent HTTP server on an ephemeral loopback port, with the fake operations behind it. */
final class ServerFixture implements AutoCloseable {
    /** The first vector's timestamp; the default test clock starts here so vectors can be replayed verbatim. */
    static final Instant VECTOR_TIME = Instant.parse("2026-12-01T19:04:05Z");

    final FakeOperations ops = new FakeOperations();
    final Clock clock;
    final NonceStore nonces;
    final AgentServer server;
    final int port;
    final String secretLine;

    private ServerFixture(Clock clock, NonceStore nonces, String secretFileContent, HttpLimits limits, Path dir)
            throws Exception {
        this(clock, nonces, secretFileContent, limits, dir,
                Accounting.metricsOnly(io.dogama.agent.metrics.Metrics.create()));
    }

    private ServerFixture(Clock clock, NonceStore nonces, String secretFileContent, HttpLimits limits, Path dir,
            Accounting accounting) throws Exception {
        this.clock = clock;
        this.nonces = nonces;
        this.secretLine = secretFileContent.split("\n")[0];
        Path secret = dir.resolve("secret-" + System.nanoTime());
        Files.writeString(secret, secretFileContent, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("r--------"));
        Authenticator auth = Authenticator.create(SecretFile.load(secret), clock, nonces);
        this.server = AgentServer.create(auth, limits, accounting);
        this.port = server.start(ops);
    }

    static ServerFixture start(Path dir) throws Exception {
        TestClock clock = new TestClock(VECTOR_TIME);
        return new ServerFixture(clock, NonceStore.inMemory(1000, clock), Signing.SECRET_LINE, limits(), dir);
    }

    /** A server that accounts in {@code accounting} (an audit log, a metrics registry). */
    static ServerFixture start(Path dir, Accounting accounting) throws Exception {
        TestClock clock = new TestClock(VECTOR_TIME);
        return new ServerFixture(clock, NonceStore.inMemory(1000, clock), Signing.SECRET_LINE, limits(), dir, accounting);
    }

    static ServerFixture start(Path dir, Clock clock, NonceStore nonces, String secretFileContent, HttpLimits limits)
            throws Exception {
        return new ServerFixture(clock, nonces, secretFileContent, limits, dir);
    }

    static HttpLimits limits() {
        return HttpLimits.defaults("127.0.0.1", 0);
    }

    /** Signed headers for a request at the server clock's current instant. */
    List<String> signedHeaders(String method, String path, String body) {
        return signedHeaders(secretLine, method, path, body, clock.instant().toString(), Signing.nonce());
    }

    static List<String> signedHeaders(String secretLine, String method, String path, String body, String timestamp,
            String nonce) {
        return List.of("Authorization: " + Signing.authorization(secretLine, method, path, timestamp, nonce,
                        body.getBytes(StandardCharsets.UTF_8)),
                "X-DoGaMa-Timestamp: " + timestamp, "X-DoGaMa-Nonce: " + nonce);
    }

    /** A signed request with a JSON content type when there is a body. */
    RawHttp.Response send(String method, String path, String body) throws IOException {
        List<String> headers = new java.util.ArrayList<>(signedHeaders(method, path, body));
        if (!body.isEmpty()) {
            headers.add("Content-Type: application/json");
        }
        return RawHttp.exchange(port, RawHttp.request(method, path, headers, body));
    }

    @Override
    public void close() {
        server.stop();
        nonces.close();
    }
}
