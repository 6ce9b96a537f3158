package io.dogama.agent.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The load run of docs/load.md, by hand only (a main, not a test): the agent from the runtime
 * image, as the end-to-end tests start it, then
 * <ol>
 * <li>{@code GET /v1/health} and {@code GET /v1/instances} (with {@value #DEFAULT_INSTANCES}
 *     registered instances) from {@value #DEFAULT_CLIENTS} concurrent clients, virtual threads on
 *     one JDK HttpClient, every request signed afresh (new nonce, current time): throughput, p50,
 *     p99;</li>
 * <li>create-start-stop-delete cycles through the agent, each next to the same four calls made
 *     directly to the engine on its Unix socket (hand-written HTTP/1.1 on one persistent
 *     connection, the same hardened create body): medians per step and the ratio;</li>
 * <li>the cost of one {@code FileChannel.force} in the data directory, which the nonce journal
 *     pays per accepted request.</li>
 * </ol>
 * Options: {@code --seconds N} measured seconds per route (default {@value #DEFAULT_SECONDS}),
 * {@code --warmup N} ({@value #DEFAULT_WARMUP}), {@code --clients N}, {@code --cycles N}
 * ({@value #DEFAULT_CYCLES}), {@code --instances N}.
 */
public final class LoadRun {
    static final int DEFAULT_CLIENTS = 32;
    static final int DEFAULT_SECONDS = 15;
    static final int DEFAULT_WARMUP = 3;
    static final int DEFAULT_CYCLES = 20;
    static final int DEFAULT_INSTANCES = 10;
    /** Cycles of each kind run before measuring (JIT, connection set-up). */
    static final int WARMUP_CYCLES = 2;
    static final int STOP_TIMEOUT_SECONDS = 10;
    static final String API = "/v1.41";

    private static final PrintStream OUT = System.out;

    private LoadRun() {
    }

    public static void main(String[] args) throws Exception {
        // Before the first HttpClient: the agent closes connections idle for 10 s.
        System.setProperty("jdk.httpclient.keepalive.timeout", "3");
        Map<String, Integer> opt = options(args);
        int clients = opt.getOrDefault("clients", DEFAULT_CLIENTS);
        int seconds = opt.getOrDefault("seconds", DEFAULT_SECONDS);
        int warmup = opt.getOrDefault("warmup", DEFAULT_WARMUP);
        int cycles = opt.getOrDefault("cycles", DEFAULT_CYCLES);
        int instances = opt.getOrDefault("instances", DEFAULT_INSTANCES);

        try (AgentUnderTest agent = new AgentUnderTest()) {
            agent.open("LoadRun");
            OUT.printf("# load run: %d clients, %d s measured after %d s warm-up per route, %d cycles%n%n",
                    clients, seconds, warmup, cycles);
            OUT.printf("machine: %d CPUs, load average before the run %s%n%n", Runtime.getRuntime().availableProcessors(),
                    Files.readString(Path.of("/proc/loadavg")).strip());

            List<String> registered = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                Plans.Plan p = agent.plan(agent.instanceId(String.format("list-%02d", i)));
                expect(agent.wire().post("/v1/instances", p.json()), 201);
                registered.add(p.id());
            }
            int listed = Json.array(agent.wire().get("/v1/instances").json().get("instances")).size();

            fsync(agent.dataDir(), "before the GET runs");
            OUT.println();
            OUT.println("| route | clients | requests | throughput (req/s) | p50 (ms) | p99 (ms) | max (ms) | non-200 |");
            OUT.println("|---|---|---|---|---|---|---|---|");
            String list = "GET /v1/instances (" + listed + " instances)";
            // one client first: the latency without queueing, for comparison
            OUT.println(concurrent(agent, "/v1/health", 1, warmup, seconds).row("GET /v1/health", 1));
            OUT.println(concurrent(agent, "/v1/health", clients, warmup, seconds).row("GET /v1/health", clients));
            OUT.println(concurrent(agent, "/v1/instances", 1, warmup, seconds).row(list, 1));
            OUT.println(concurrent(agent, "/v1/instances", clients, warmup, seconds).row(list, clients));
            OUT.println();
            fsync(agent.dataDir(), "after the GET runs");
            OUT.println();

            for (String id : registered) {
                expect(agent.wire().delete("/v1/instances/" + id), 204);
            }
            cycles(agent, cycles);
            OUT.printf("load average after the run %s%n", Files.readString(Path.of("/proc/loadavg")).strip());
            OUT.printf("%nagent log: modules/e2e-tests/target/e2e-logs/LoadRun-%s.log%n", agent.token());
        }
    }

    // ------------------------------------------------------------------ concurrent GETs

    /** Latencies of one route's run. */
    record Run(long[] nanos, double seconds, Map<Integer, Long> others) {
        String row(String route, int clients) {
            long[] s = nanos.clone();
            Arrays.sort(s);
            long errors = others.values().stream().mapToLong(Long::longValue).sum();
            return String.format("| %s | %d | %d | %.0f | %.2f | %.2f | %.2f | %s |", route, clients, s.length,
                    s.length / seconds, ms(pct(s, 50)), ms(pct(s, 99)), ms(s.length == 0 ? 0 : s[s.length - 1]),
                    errors == 0 ? "0" : others.toString());
        }
    }

    static Run concurrent(AgentUnderTest agent, String path, int clients, int warmupSeconds, int seconds)
            throws Exception {
        long start = System.nanoTime() + 200_000_000L;
        long measureFrom = start + warmupSeconds * 1_000_000_000L;
        long end = measureFrom + seconds * 1_000_000_000L;
        Map<Integer, Long> others = new ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<long[]>> futures = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                futures.add(pool.submit(() -> {
                    long[] buf = new long[1024];
                    int n = 0;
                    go.await();
                    while (true) {
                        long t0 = System.nanoTime();
                        if (t0 >= end) {
                            break;
                        }
                        Wire.Response r = agent.wire().get(path);
                        long t1 = System.nanoTime();
                        if (t0 >= measureFrom && t1 <= end) {
                            if (r.status() == 200) {
                                if (n == buf.length) {
                                    buf = Arrays.copyOf(buf, n * 2);
                                }
                                buf[n++] = t1 - t0;
                            } else {
                                others.merge(r.status(), 1L, Long::sum);
                            }
                        }
                    }
                    return Arrays.copyOf(buf, n);
                }));
            }
            while (System.nanoTime() < start) {
                Thread.onSpinWait();
            }
            go.countDown();
            // No client starts a request after end, and each request gives up after Wire.REQUEST_TIMEOUT: a client
            // still busy two minutes after end is stuck, and the run says so instead of waiting for ever.
            long limitSeconds = warmupSeconds + seconds + 120L;
            long deadline = start + TimeUnit.SECONDS.toNanos(limitSeconds);
            List<long[]> parts = new ArrayList<>();
            for (Future<long[]> f : futures) {
                try {
                    parts.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    // HttpClient.send ends when interrupted: the pool's close then has nothing left to wait for.
                    futures.forEach(g -> g.cancel(true));
                    throw new AssertionError("load run: a client of " + path + " was still busy " + limitSeconds
                            + " s after the start (" + warmupSeconds + " s warm-up, " + seconds + " s measured)", e);
                }
            }
            long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
            return new Run(all, seconds, new TreeMap<>(others));
        }
    }

    // ------------------------------------------------------------------ create-start-stop-delete

    static void cycles(AgentUnderTest agent, int cycles) throws Exception {
        String[] steps = {"create", "start", "stop", "delete"};
        List<long[]> viaAgent = new ArrayList<>();
        List<long[]> direct = new ArrayList<>();
        String image = null;
        try (EngineSocket engine = new EngineSocket(agent.engine().socketPath())) {
            for (int i = 0; i < WARMUP_CYCLES + cycles; i++) {
                Plans.Plan p = agent.plan(agent.instanceId(String.format("cyc-%03d", i)));
                String path = "/v1/instances/" + p.id();
                long[] a = new long[4];
                long t = System.nanoTime();
                expect(agent.wire().post("/v1/instances", p.json()), 201);
                a[0] = System.nanoTime() - t;
                if (image == null) {
                    // the reference the agent gives the engine, for an equal direct create body
                    image = (String) Json.object(agent.engine().inspect("dogama-" + p.id()).get("Config")).get("Image");
                }
                t = System.nanoTime();
                expect(agent.wire().post(path + "/start"), 200);
                a[1] = System.nanoTime() - t;
                t = System.nanoTime();
                expect(agent.wire().post(path + "/stop", "{\"timeoutSeconds\":" + STOP_TIMEOUT_SECONDS + "}"), 200);
                a[2] = System.nanoTime() - t;
                t = System.nanoTime();
                expect(agent.wire().delete(path), 204);
                a[3] = System.nanoTime() - t;

                String name = "e2e-" + agent.token() + String.format("-direct-%03d", i);
                String body = createBody(agent, image, name);
                long[] d = new long[4];
                t = System.nanoTime();
                EngineSocket.Reply created = engine.call("POST", API + "/containers/create?name=" + name, body);
                d[0] = System.nanoTime() - t;
                expect(created, 201);
                String id = (String) Json.parse(created.body()).get("Id");
                t = System.nanoTime();
                expect(engine.call("POST", API + "/containers/" + id + "/start", null), 204);
                d[1] = System.nanoTime() - t;
                t = System.nanoTime();
                expect(engine.call("POST", API + "/containers/" + id + "/stop?t=" + STOP_TIMEOUT_SECONDS, null), 204);
                d[2] = System.nanoTime() - t;
                t = System.nanoTime();
                expect(engine.call("DELETE", API + "/containers/" + id + "?force=true", null), 204);
                d[3] = System.nanoTime() - t;
                if (i >= WARMUP_CYCLES) {
                    viaAgent.add(a);
                    direct.add(d);
                }
            }
        }
        OUT.printf("create-start-stop-delete, %d cycles each, interleaved (agent cycle, then direct cycle), medians:%n%n",
                cycles);
        OUT.println("| step | through the agent (ms) | direct to the engine (ms) | ratio | agent overhead (ms) |");
        OUT.println("|---|---|---|---|---|");
        long[] totalA = new long[viaAgent.size()];
        long[] totalD = new long[direct.size()];
        for (int i = 0; i < viaAgent.size(); i++) {
            totalA[i] = Arrays.stream(viaAgent.get(i)).sum();
            totalD[i] = Arrays.stream(direct.get(i)).sum();
        }
        for (int s = 0; s < 4; s++) {
            int step = s;
            row(steps[s], viaAgent.stream().mapToLong(x -> x[step]).toArray(), direct.stream().mapToLong(x -> x[step]).toArray());
        }
        row("whole cycle", totalA, totalD);
        OUT.println();
    }

    private static void row(String step, long[] agent, long[] direct) {
        double a = ms(median(agent));
        double d = ms(median(direct));
        OUT.printf("| %s | %.1f | %.1f | %.2f | %.1f |%n", step, a, d, a / d, a - d);
    }

    /** The create body the agent builds for the demo plan (docker module's CreateBody), by hand. */
    static String createBody(AgentUnderTest agent, String image, String name) {
        int port = agent.freeHostPort();
        agent.instanceData(name);
        // the agent hands the engine the source with every symlink resolved
        String source = agent.realRoot().resolve(name).resolve("data").toString();
        Map<String, Object> labels = new LinkedHashMap<>();
        labels.put("owner", "e2e");
        labels.put("e2e.managed", "true");
        labels.put("e2e.instance-id", name);
        labels.put("e2e.template-id", "demo-http");
        labels.put("e2e.template-version", "1.0.0");
        labels.put("e2e.plan-digest", "sha256:" + "0".repeat(64));
        Map<String, Object> host = new LinkedHashMap<>();
        host.put("NetworkMode", agent.network());
        host.put("PortBindings", Map.of("8080/tcp", List.of(Map.of("HostIp", "127.0.0.1", "HostPort", Integer.toString(port)))));
        host.put("RestartPolicy", Map.of("Name", "no", "MaximumRetryCount", 0));
        host.put("LogConfig", Map.of("Type", "json-file", "Config", Map.of("max-size", "10m", "max-file", "3")));
        host.put("Privileged", false);
        host.put("Init", true);
        host.put("CapDrop", List.of("ALL"));
        host.put("CapAdd", List.of());
        host.put("SecurityOpt", List.of("no-new-privileges:true"));
        host.put("ReadonlyRootfs", true);
        host.put("IpcMode", "private");
        host.put("PidMode", "");
        host.put("UTSMode", "");
        host.put("UsernsMode", "");
        host.put("CgroupnsMode", "private");
        host.put("Memory", Plans.MEMORY);
        host.put("MemorySwap", Plans.MEMORY);
        host.put("NanoCpus", Plans.NANO_CPUS);
        host.put("PidsLimit", Plans.PIDS);
        host.put("Mounts", List.of(Map.of("Type", "bind", "Source", source, "Target", "/data", "ReadOnly", false,
                "BindOptions", Map.of("Propagation", "rprivate"))));
        host.put("Tmpfs", Map.of("/tmp", "rw,noexec,nosuid,nodev,size=16777216"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("User", "65534:65534");
        body.put("Env", List.of("GREETING=hello"));
        body.put("Cmd", Plans.DEMO_COMMAND);
        body.put("Image", image);
        body.put("Labels", labels);
        body.put("ExposedPorts", Map.of("8080/tcp", Map.of()));
        body.put("HostConfig", host);
        body.put("NetworkingConfig", Map.of("EndpointsConfig", Map.of(agent.network(), Map.of())));
        return Json.write(body);
    }

    // ------------------------------------------------------------------ fsync

    /** What the nonce journal pays per accepted request: an append of one line and a force. */
    static void fsync(Path dataDir, String when) throws IOException {
        Path f = dataDir.resolve("fsync-probe");
        int n = 500;
        long[] t = new long[n];
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            byte[] line = "1764620000000 AAAAAAAAAAAAAAAAAAAAAA\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (int i = 0; i < n; i++) {
                long s = System.nanoTime();
                ch.write(ByteBuffer.wrap(line));
                ch.force(false);
                t[i] = System.nanoTime() - s;
            }
        } finally {
            Files.deleteIfExists(f);
        }
        Arrays.sort(t);
        OUT.printf("append + FileChannel.force(false) in the data directory, %d times, %s: p50 %.2f ms, p99 %.2f ms "
                + "(at most %.0f serialized admissions per second at the median)%n", n, when, ms(pct(t, 50)), ms(pct(t, 99)),
                1000 / ms(pct(t, 50)));
    }

    // ------------------------------------------------------------------ helpers

    private static void expect(Wire.Response r, int status) {
        if (r.status() != status) {
            throw new AssertionError("load run: expected " + status + ", got " + r);
        }
    }

    private static void expect(EngineSocket.Reply r, int status) {
        if (r.status() != status) {
            throw new AssertionError("load run: the engine answered " + r.status() + ": " + r.body());
        }
    }

    private static long pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static long median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return pct(s, 50);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static Map<String, Integer> options(String[] args) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: LoadRun [--seconds N] [--warmup N] [--clients N] [--cycles N] [--instances N]");
            }
            out.put(args[i].substring(2), Integer.parseInt(args[++i]));
        }
        return out;
    }
}
