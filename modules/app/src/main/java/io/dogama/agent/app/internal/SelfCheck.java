package io.dogama.agent.app.internal;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.auth.NonceStore;
import io.dogama.agent.auth.RequestSigner;
import io.dogama.agent.auth.SecretFile;
import io.dogama.agent.auth.Secrets;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.http.Accounting;
import io.dogama.agent.http.AgentServer;
import io.dogama.agent.metrics.Metrics;
import io.dogama.agent.http.HttpLimits;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Exercises every runtime library from inside the runtime image, through the modules that own
 * them, and fails if any does not work there (a missing module descriptor, JVM option or native
 * library shows up here rather than in production). Everything it creates lives in a temporary
 * directory that is deleted afterwards; it never creates a container.
 */
final class SelfCheck {
    private static final String DEFAULT_SOCKET = "/var/run/docker.sock";

    private SelfCheck() {
    }

    /** One named check; throws on failure. */
    interface Check {
        void run() throws Exception;
    }

    record Named(String name, Check check) {
    }

    /** The record that jackson-jr must write and read back (it needs MethodParameters: no --strip-debug). */
    public record Probe(String name, int count, List<String> tags) {
    }

    static int run(Map<String, String> env, PrintStream out) {
        Path socket = socket(env);
        Path tmp;
        try {
            tmp = Files.createTempDirectory("dogama-self-check");
        } catch (IOException e) {
            out.println("self-check FAILED: no temporary directory");
            return 1;
        }
        List<Named> checks = new ArrayList<>();
        checks.add(new Named("jackson-jr", SelfCheck::jackson));
        checks.add(new Named("junixsocket", () -> {
            try (DockerEngine docker = DockerEngine.connect(socket)) {
                docker.ping();
            }
        }));
        checks.add(new Named("registry", () -> registry(tmp.resolve("registry"))));
        checks.add(new Named("squirrel", () -> {
            int rows = Lifecycle.verifyStateMachine();
            if (rows < 1) {
                throw new IllegalStateException("empty transition table");
            }
        }));
        checks.add(new Named("helidon", () -> serve(tmp.resolve("agent"), socket)));
        int failed = 0;
        for (Named n : checks) {
            long t0 = System.nanoTime();
            try {
                n.check().run();
                out.printf("self-check %-12s ok (%d ms)%n", n.name(), (System.nanoTime() - t0) / 1_000_000);
            } catch (Exception | LinkageError e) {
                failed++;
                out.printf("self-check %-12s FAILED: %s%n", n.name(), e);
            }
        }
        deleteQuietly(tmp);
        out.println(failed == 0 ? "self-check passed" : "self-check FAILED (" + failed + " of " + checks.size() + ")");
        return failed == 0 ? 0 : 1;
    }

    static Path socket(Map<String, String> env) {
        String host = env.getOrDefault("DOCKER_HOST", "");
        return Path.of(host.startsWith("unix://") ? host.substring("unix://".length()) : DEFAULT_SOCKET);
    }

    private static void jackson() throws IOException {
        Probe in = new Probe("probe", 3, List.of("a", "b"));
        String json = JSON.std.asString(in);
        Probe back = JSON.std.beanFrom(Probe.class, json);
        if (!in.equals(back)) {
            throw new IllegalStateException("round trip changed the record: " + json);
        }
    }

    /** A registry written, closed, reopened and read back. */
    private static void registry(Path dir) throws Exception {
        Files.createDirectories(dir);
        InstanceRecord record = new InstanceRecord("self-check", Optional.empty(), "dogama-self-check", "demo-http",
                "1.0.0", "sha256:" + "0".repeat(64), "{}", InstanceState.CREATING, 0, Optional.empty(),
                Optional.empty());
        try (Registry r = Registry.open(dir, 4)) {
            if (!(r.insert(record) instanceof CasResult.Stored)) {
                throw new IllegalStateException("insert refused");
            }
        }
        try (Registry r = Registry.open(dir, 4)) {
            if (!(r.get("self-check") instanceof Lookup.Found found) || !found.record().equals(record)) {
                throw new IllegalStateException("record not read back after reopen");
            }
        }
    }

    /** The real wiring on a throwaway config: Helidon serves signed requests answered by the lifecycle. */
    private static void serve(Path dir, Path socket) throws Exception {
        Path roots = Files.createDirectories(dir.resolve("instances"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path secretFile = dir.resolve("secret");
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Files.writeString(secretFile, Base64.getUrlEncoder().withoutPadding().encodeToString(key) + "\n",
                StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(secretFile, PosixFilePermissions.fromString("rw-------"));
        String json = "{\"listen\":{\"host\":\"127.0.0.1\",\"port\":8480},\"dockerSocket\":\"" + socket
                + "\",\"secretFile\":\"" + secretFile + "\",\"dataDir\":\"" + data
                + "\",\"allowedRoots\":{\"instances\":\"" + roots + "\"},\"networks\":[\"dogama-self-check\"],"
                + "\"hostIps\":[\"127.0.0.1\"],\"hostPorts\":{\"min\":20000,\"max\":20010},\"limits\":{\"memoryBytes\":"
                + "67108864,\"nanoCpus\":1000000000,\"pidsLimit\":64,\"instances\":4},\"allowRootUser\":false}";
        AdminConfig config = AdminConfig.parse(json.getBytes(StandardCharsets.UTF_8));
        Secrets secrets = SecretFile.load(secretFile);
        Clock clock = Clock.systemUTC();
        try (DockerEngine docker = DockerEngine.connect(socket);
                Registry registry = Registry.open(data, config.limits().instances());
                NonceStore nonces = NonceStore.inMemory(16, clock)) {
            AgentOperations ops = Lifecycle.start(docker, registry, PlanPolicy.create(config, Catalog.embedded()));
            AgentServer server = AgentServer.create(Authenticator.create(secrets, clock, nonces),
                    HttpLimits.defaults("127.0.0.1", 0), Accounting.metricsOnly(Metrics.create()));
            int port = server.start(ops);
            try {
                RequestSigner signer = RequestSigner.create(secrets, clock);
                for (String path : List.of("/v1/health", "/v1/instances")) {
                    int status = HealthCommand.get(signer, "127.0.0.1", port, path);
                    if (status != 200) {
                        throw new IllegalStateException(path + " answered " + status);
                    }
                }
            } finally {
                server.stop();
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless; the check result stands
        }
    }
}
