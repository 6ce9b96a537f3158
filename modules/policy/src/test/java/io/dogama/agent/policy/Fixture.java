package io.dogama.agent.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.internal.Canonical;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real host layout in a temporary folder: an allowed root with an instance's data folder, a folder
 * outside every root, a Docker socket (a real listening Unix socket, group {@link #SOCKET_GID}) in
 * its own folder, a data directory and a secret file; plus the administrator config over it and the
 * demo plan.
 */
final class Fixture implements AutoCloseable {
    static final String DEMO_IMAGE_ID = "sha256:e0d78e698369f6bd67ecd62429442e06f7e1423b813ec6f7503fff67a81cd496";
    /** The group the fixture's Docker socket belongs to, as a host's {@code docker} group would. */
    static final int SOCKET_GID = 2375;

    final Path dir;
    final Path instances;
    final Path data;
    final Path outside;
    final Path socketDir;
    final Path socket;
    final Path dataDir;
    final Path secret;
    private final ServerSocketChannel socketChannel;

    Fixture(Path tempDir) throws IOException {
        dir = tempDir.toRealPath();
        instances = Files.createDirectories(dir.resolve("srv/instances"));
        data = Files.createDirectories(instances.resolve("demo-0001/data"));
        outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "not for containers");
        socketDir = Files.createDirectories(dir.resolve("run/docker"));
        socket = socketDir.resolve("docker.sock");
        socketChannel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        socketChannel.bind(UnixDomainSocketAddress.of(socket));
        Files.setAttribute(socket, "unix:gid", SOCKET_GID);
        dataDir = Files.createDirectories(dir.resolve("var/lib/dogama-agent"));
        secret = dir.resolve("secrets/hmac");
        Files.createDirectories(secret.getParent());
        Files.writeString(secret, "c2VjcmV0");
    }

    @Override
    public void close() throws IOException {
        socketChannel.close();
    }

    /** @return the administrator config as a mutable map */
    Map<String, Object> configMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("listen", map("host", "127.0.0.1", "port", 8480));
        m.put("dockerSocket", socket.toString());
        m.put("secretFile", secret.toString());
        m.put("dataDir", dataDir.toString());
        m.put("allowedRoots", map("instances", instances.toString()));
        m.put("networks", list("dogama-games", "dogama-web"));
        m.put("hostIps", list("0.0.0.0", "127.0.0.1"));
        m.put("hostPorts", map("min", 20000, "max", 40000));
        m.put("limits", map("memoryBytes", 8589934592L, "nanoCpus", 4000000000L, "pidsLimit", 1024,
                "instances", 200));
        m.put("allowRootUser", false);
        return m;
    }

    AdminConfig config() throws PolicyException {
        return AdminConfig.parse(json(configMap()));
    }

    PlanPolicy policy() throws PolicyException {
        return PlanPolicy.create(config(), Catalog.embedded());
    }

    /** @return the demo plan of SPEC section 12 as a mutable map */
    Map<String, Object> demoPlan() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("instanceId", "demo-0001");
        m.put("templateId", "demo-http");
        m.put("templateVersion", "1.0.0");
        m.put("image", "dogama/demo-http:1");
        m.put("capAdd", list());
        m.put("env", map("GREETING", "Hello, world!"));
        m.put("mounts", list(map("source", data.toString(), "target", "/data", "readOnly", false)));
        m.put("ports", list(map("name", "http", "containerPort", 8080, "protocol", "tcp", "hostIp", "0.0.0.0",
                "hostPort", 20080)));
        m.put("resources", map("memoryBytes", 67108864, "nanoCpus", 500000000, "pidsLimit", 64));
        m.put("user", "65534:65534");
        m.put("labels", map("owner", "team-a"));
        m.put("networks", list("dogama-games"));
        return m;
    }

    static ImageFacts demoImage() {
        return new ImageFacts(DEMO_IMAGE_ID, List.of(), "65534:65534", List.of());
    }

    static byte[] json(Object value) {
        return Canonical.json(value);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A mutable map from alternating keys and values. */
    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** A mutable list. */
    static List<Object> list(Object... items) {
        return new ArrayList<>(List.of(items));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> at(Map<String, Object> m, String key, int index) {
        return (Map<String, Object>) ((List<Object>) m.get(key)).get(index);
    }

    @SuppressWarnings("unchecked")
    static List<Object> items(Map<String, Object> m, String key) {
        return (List<Object>) m.get(key);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> sub(Map<String, Object> m, String key) {
        return (Map<String, Object>) m.get(key);
    }

    static <T> T ok(Outcome<T> o) {
        if (o instanceof Outcome.Failed<T> f) {
            fail("expected success, got " + f.code() + " " + f.violations());
        }
        return ((Outcome.Ok<T>) o).value();
    }

    static List<Violation> rejected(Outcome<?> o) {
        Outcome.Failed<?> f = assertInstanceOf(Outcome.Failed.class, o, "expected a rejection");
        assertEquals(ProblemCode.PLAN_REJECTED, f.code(), () -> "violations " + f.violations());
        return f.violations();
    }

    /** Asserts the outcome is plan_rejected and carries this violation. */
    static void assertViolation(Outcome<?> o, String field, String rule) {
        List<Violation> v = rejected(o);
        assertTrue(v.contains(new Violation(field, rule)), () -> "expected " + field + "/" + rule + " in " + v);
    }

    /** Asserts the outcome is plan_rejected with exactly these violations, in any order. */
    static void assertOnly(Outcome<?> o, Violation... expected) {
        List<Violation> v = rejected(o);
        assertEquals(java.util.Set.of(expected), java.util.Set.copyOf(v), () -> "violations " + v);
    }
}
