package io.dogama.agent.auth.bench;

import io.dogama.agent.auth.AuthDecision;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.RequestHeaders;
import io.dogama.agent.auth.SecretFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of authenticating one request: SHA-256 of the body (the HTTP gate computes it while reading)
 * plus {@link Authenticator#verify} with header parsing, the HMAC under both secrets and a nonce
 * admission. Every invocation uses a fresh nonce, so the nonce memory does real work; it is large
 * enough never to fill during a run. Run by hand, see docs/bench-auth.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class VerifyBenchmark {
    private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    private static final String PREVIOUS = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[32]);

    /** Body size: 1 KiB and the 64 KiB limit. */
    @Param({"1024", "65536"})
    public int bodyBytes;

    /** {@code memory} or {@code journal} (persistent, forced to disk per accepted nonce). */
    @Param({"memory", "journal"})
    public String store;

    private Authenticator authenticator;
    private NonceStore nonces;
    private Path dir;
    private byte[] body;
    private Mac mac;
    private String timestamp;
    private long counter;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("dogama-bench");
        Path secret = dir.resolve("secret");
        Files.writeString(secret, SECRET + "\n" + PREVIOUS + "\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Instant now = Instant.parse("2026-12-01T19:04:05Z");
        Clock clock = Clock.fixed(now, java.time.ZoneOffset.UTC);
        nonces = "journal".equals(store) ? NonceStore.persistent(dir, NonceStore.MAX_CAPACITY, clock)
                : NonceStore.inMemory(NonceStore.MAX_CAPACITY, clock);
        authenticator = Authenticator.create(SecretFile.load(secret), clock, nonces);
        body = new byte[bodyBytes];
        java.util.Arrays.fill(body, (byte) 'x');
        mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getUrlDecoder().decode(SECRET), "HmacSHA256"));
        timestamp = now.toString();
        if (!(hashAndVerify() instanceof AuthDecision.Accepted)) {
            throw new IllegalStateException("benchmark request is not accepted; the numbers would be meaningless");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        nonces.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** Client side, outside the measured path's cost model but inside the invocation: kept small. */
    private RequestHeaders sign(String nonce, byte[] digest) {
        String canonical = "DOGAMA-HMAC-V1\nPOST\n/v1/instances\n" + timestamp + "\n" + nonce + "\n"
                + HexFormat.of().formatHex(digest);
        String authorization = "DoGaMa-HMAC-SHA256 " + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
        return name -> switch (name) {
            case Authenticator.AUTHORIZATION_HEADER -> List.of(authorization);
            case Authenticator.TIMESTAMP_HEADER -> List.of(timestamp);
            case Authenticator.NONCE_HEADER -> List.of(nonce);
            default -> List.of();
        };
    }

    private String nextNonce() {
        return String.format("bench-nonce-%016d", counter++);
    }

    /**
     * Body hash, a client signature, and verify. The client part is measured alone by
     * {@link #clientSignOnly}; the agent's cost is the difference.
     */
    @Benchmark
    public AuthDecision hashAndVerify() throws Exception {
        String nonce = nextNonce();
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
        RequestHeaders headers = sign(nonce, digest);
        return authenticator.verify("POST", "/v1/instances", headers, digest);
    }

    /** The client-side part included in {@link #hashAndVerify}, to subtract it. */
    @Benchmark
    public RequestHeaders clientSignOnly() {
        return sign(nextNonce(), new byte[32]);
    }

    /** Runs the benchmarks; arguments are passed to JMH. */
    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(args);
    }
}
