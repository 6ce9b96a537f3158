package io.dogama.agent.lifecycle.bench;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.lifecycle.AgentOperations;
import io.dogama.agent.lifecycle.Lifecycle;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.registry.Registry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * One full create, start, stop, delete cycle of a demo instance through the public API
 * ({@link Lifecycle#start}), against the real engine (DOCKER_HOST), with the registry on disk. Each
 * invocation is one cycle (single-shot); the per-operation split is logged at tear-down. Run by
 * hand, see docs/lifecycle.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 30)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class CycleBench {
    private static final System.Logger LOG = System.getLogger(CycleBench.class.getName());
    /** Stop timeout of the cycle, seconds (the demo container has an init, so it stops at once). */
    private static final int STOP_SECONDS = 10;

    /** The operations of one cycle. */
    enum Op {
        CREATE, START, STOP, DELETE
    }

    private Path base;
    private Path source;
    private String network;
    private DockerEngine docker;
    private Registry registry;
    private AgentOperations ops;
    private int n;
    private final Map<Op, List<Long>> nanos = new EnumMap<>(Op.class);

    /** Creates the benchmark; JMH instantiates it. */
    public CycleBench() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args ignored
     * @throws RunnerException if JMH fails
     */
    public static void main(String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(CycleBench.class.getSimpleName()).build()).run();
    }

    private static Path socket() {
        String host = System.getenv("DOCKER_HOST");
        return host != null && host.startsWith("unix://") ? Path.of(host.substring(7)) : Path.of("/var/run/docker.sock");
    }

    private static void cli(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/docker"));
        Collections.addAll(cmd, args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("DOCKER_HOST", "unix://" + socket());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("docker " + String.join(" ", args) + " failed");
        }
    }

    /**
     * Sets up a network, an allowed root with a bind source, a registry and the agent.
     *
     * @throws Exception if anything is missing
     */
    @Setup
    public void setUp() throws Exception {
        base = Files.createTempDirectory("dogama-bench-").toRealPath();
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path root = Files.createDirectory(base.resolve("instances"));
        source = Files.createDirectory(root.resolve("data"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = Files.createDirectory(base.resolve("data"));
        network = "dogama-bench-" + ProcessHandle.current().pid();
        cli("network", "create", "--internal", network);
        AdminConfig config = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), socket(),
                base.resolve("secret"), data, Map.of("instances", root), List.of(network), List.of("127.0.0.1"),
                new AdminConfig.PortRange(42000, 48999), new AdminConfig.Limits(1L << 30, 2_000_000_000L, 1024, 200),
                false);
        docker = DockerEngine.connect(socket());
        registry = Registry.open(data, 200);
        ops = Lifecycle.start(docker, registry, PlanPolicy.create(config, Catalog.embedded()));
        for (Op op : Op.values()) {
            nanos.put(op, new ArrayList<>());
        }
    }

    /**
     * Logs the per-operation medians and removes what the set-up made.
     *
     * @throws Exception if clean-up fails
     */
    @TearDown
    public void tearDown() throws Exception {
        StringBuilder b = new StringBuilder("lifecycle cycle split (median / p90 ms):");
        nanos.forEach((op, l) -> {
            List<Long> s = l.stream().sorted().toList();
            if (!s.isEmpty()) {
                b.append(String.format(Locale.ROOT, " %s %.1f / %.1f", op.name().toLowerCase(Locale.ROOT),
                        s.get(s.size() / 2) / 1e6, s.get(Math.min(s.size() - 1, s.size() * 9 / 10)) / 1e6));
            }
        });
        LOG.log(System.Logger.Level.INFO, b.toString());
        registry.close();
        docker.close();
        cli("network", "rm", network);
        try (Stream<Path> s = Files.walk(base)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static <T> T ok(Outcome<T> o) {
        if (o instanceof Outcome.Ok<T> ok) {
            return ok.value();
        }
        throw new IllegalStateException("operation failed: " + o);
    }

    private void timed(Op op, Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        nanos.get(op).add(System.nanoTime() - t0);
    }

    /** One create, start, stop, delete. */
    @Benchmark
    public void cycle() {
        String id = "bench-" + (++n);
        String plan = """
                {"instanceId":"%s","templateId":"demo-http","templateVersion":"1.0.0","image":"dogama/demo-http:1",
                 "capAdd":[],"env":{},"mounts":[{"source":"%s","target":"/data","readOnly":false}],
                 "ports":[{"name":"http","containerPort":8080,"protocol":"tcp","hostIp":"127.0.0.1","hostPort":%d}],
                 "resources":{"memoryBytes":33554432,"nanoCpus":200000000,"pidsLimit":64},"labels":{},
                 "networks":["%s"]}
                """.formatted(id, source, 42000 + n % 6000, network);
        timed(Op.CREATE, () -> ok(ops.create(plan.getBytes(StandardCharsets.UTF_8))));
        timed(Op.START, () -> ok(ops.start(id)));
        timed(Op.STOP, () -> ok(ops.stop(id, STOP_SECONDS)));
        timed(Op.DELETE, () -> ok(ops.delete(id)));
    }
}
