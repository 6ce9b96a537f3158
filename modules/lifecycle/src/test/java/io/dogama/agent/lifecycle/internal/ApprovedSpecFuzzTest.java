package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.ImageFacts;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.ValidatedPlan;
import io.dogama.agent.policy.ValidationContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz target across policy and docker (docs/fuzzing.md): every plan that passes
 * validation and approval gives a {@link ContainerSpec} that the Docker client's defensive check
 * ({@code CreateBody.check}, reached through {@link DockerEngine#createContainer}, which runs it
 * before any engine call) accepts, and whose bind sources are resolved paths strictly below the
 * allowed root. It lives here because this is the first module that reads both policy and docker;
 * the check stays internal to docker. Inputs: {@code ApprovedSpecFuzzTestInputs/plans/}, plan bytes
 * in which {@code $ROOT} and {@code $DATA} stand for the layout's allowed root and an instance's
 * data folder.
 *
 * <p>The engine is a stub on a Unix socket that answers {@code /version} and closes every other
 * request: a refusal of the check is an {@link IllegalArgumentException}, any engine failure after
 * it a {@link DockerException}, which is expected here.
 */
class ApprovedSpecFuzzTest {
    private static final String VERSION = "{\"Version\":\"20.10.24\",\"ApiVersion\":\"1.41\",\"MinAPIVersion\":\"1.12\"}";

    @TempDir
    static Path tmp;
    static Path root;
    static Path data;
    static ServerSocketChannel stub;
    static DockerEngine engine;
    static PlanPolicy policy;

    @BeforeAll
    static void start() throws Exception {
        Path dir = tmp.toRealPath();
        root = Files.createDirectories(dir.resolve("srv/instances"));
        data = Files.createDirectories(root.resolve("demo-0001/data"));
        Path socket = Files.createDirectories(dir.resolve("run")).resolve("docker.sock");
        stub = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        stub.bind(UnixDomainSocketAddress.of(socket));
        Thread.ofPlatform().daemon().name("stub-engine").start(ApprovedSpecFuzzTest::serve);
        Path dataDir = Files.createDirectories(dir.resolve("var/lib/dogama-agent"));
        Path secret = Files.createDirectories(dir.resolve("secrets")).resolve("hmac");
        Files.writeString(secret, "c2VjcmV0");
        String config = "{\"listen\":{\"host\":\"127.0.0.1\",\"port\":8480},\"dockerSocket\":\"" + socket
                + "\",\"secretFile\":\"" + secret + "\",\"dataDir\":\"" + dataDir + "\",\"allowedRoots\":{\"instances\":\""
                + root + "\"},\"networks\":[\"dogama-games\"],\"hostIps\":[\"0.0.0.0\"],\"hostPorts\":{\"min\":20000,"
                + "\"max\":40000},\"limits\":{\"memoryBytes\":8589934592,\"nanoCpus\":4000000000,\"pidsLimit\":1024,"
                + "\"instances\":200},\"allowRootUser\":false}";
        policy = PlanPolicy.create(AdminConfig.parse(config.getBytes(StandardCharsets.UTF_8)), Catalog.embedded());
        engine = DockerEngine.connect(socket, DockerLimits.DEFAULTS);
    }

    @AfterAll
    static void stop() throws IOException {
        engine.close();
        stub.close();
    }

    @FuzzTest(maxDuration = "5m")
    void plans(byte[] input) {
        byte[] json = new String(input, StandardCharsets.UTF_8).replace("$ROOT", root.toString())
                .replace("$DATA", data.toString()).getBytes(StandardCharsets.UTF_8);
        if (!(policy.validate(json, ValidationContext.EMPTY) instanceof Outcome.Ok<ValidatedPlan> valid)) {
            return;
        }
        String imageId = valid.value().template().imageId().orElse("sha256:" + "ab".repeat(32));
        if (!(policy.approve(valid.value(), new ImageFacts(imageId, List.of(), "65534:65534", List.of()))
                instanceof Outcome.Ok<ApprovedPlan> approved)) {
            return;
        }
        ContainerSpec spec = approved.value().spec();
        for (ContainerSpec.BindMount m : spec.mounts()) {
            Path p = Path.of(m.source());
            assertTrue(p.isAbsolute() && p.normalize().equals(p) && p.startsWith(root), "outside the root: " + p);
            assertNotEquals(root, p, "the allowed root itself");
        }
        // The stub is a Unix socket of this test; Jazzer's SSRF detector would report the connection.
        SilentCloseable allowed = BugDetectors.allowNetworkConnections();
        try {
            engine.createContainer(spec);
        } catch (DockerException expected) {
            // The stub answers nothing but /version: the check passed, the engine call failed.
        } finally {
            allowed.close();
        }
    }

    /** Answers {@code /version} on each connection, then closes it at the next request. */
    private static void serve() {
        while (stub.isOpen()) {
            try {
                SocketChannel c = stub.accept();
                Thread.ofPlatform().daemon().name("stub-engine-conn").start(() -> answer(c));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void answer(SocketChannel c) {
        try (c; InputStream in = Channels.newInputStream(c); OutputStream out = Channels.newOutputStream(c)) {
            while (true) {
                String head = head(in);
                if (head == null || !head.contains("/version ")) {
                    return;
                }
                byte[] body = VERSION.getBytes(StandardCharsets.US_ASCII);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** @return the request head, or null at the end of the stream */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int ch = in.read();
            if (ch < 0) {
                return null;
            }
            b.write(ch);
            matched = (ch == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (ch == '\r' ? 1 : 0);
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
