package io.dogama.agent.docker.bench;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.ContainerSpec.Limits;
import io.dogama.agent.core.ContainerSpec.RestartPolicy;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;

/**
 * A small latency harness, run by hand (not a test): ping and container inspect through this
 * client next to {@code curl --unix-socket} against the same engine in the same run.
 *
 * <p>curl is timed two ways: one process per request (process start dominates) and one process
 * for many requests on one kept-alive connection (the fair comparison with a pooled client).
 *
 * <p>Usage: {@code DockerBench [OUT.md] [ITERATIONS]}; the engine comes from DOCKER_HOST
 * ({@code unix://...}) or {@code /var/run/docker.sock}. The result table goes to OUT.md (default
 * {@code target/bench-docker.md}) and to the log.
 */
public final class DockerBench {
    private static final System.Logger LOG = System.getLogger(DockerBench.class.getName());
    /** Default measured calls per operation. */
    static final int DEFAULT_ITERATIONS = 5000;
    /** Calls before measuring, so the JIT has compiled the client. */
    static final int WARMUP = 5000;
    /** Interleaved measuring rounds. */
    static final int ROUNDS = 10;
    /** curl processes started for the spawn-per-request figure. */
    static final int CURL_SPAWNS = 100;
    /** URLs given to one curl process for the kept-alive figure. */
    static final int CURL_BATCH = 1000;
    /** Kept-alive curl runs; the median per-request average is reported. */
    static final int CURL_BATCH_RUNS = 5;

    private DockerBench() {
    }

    /**
     * @param args optional output file and iteration count
     * @throws Exception on any failure (this is a hand-run tool)
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/bench-docker.md");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_ITERATIONS;
        Path socket = socket();
        String network = "dogama-bench-" + Long.toHexString(System.nanoTime());
        String name = network + "-c";
        run("docker", "network", "create", network);
        try (DockerEngine engine = DockerEngine.connect(socket)) {
            String api = engine.version().negotiated();
            String image = engine.inspectImage("dogama/demo-http:1")
                    .orElseThrow(() -> new IllegalStateException("run scripts/demo-image first")).id();
            String id = engine.createContainer(new ContainerSpec(name, image, Optional.empty(), Optional.empty(),
                    Map.of(), Optional.empty(), Optional.empty(), Map.of(), List.of(), List.of(), List.of(), List.of(),
                    new Limits(64L << 20, 500_000_000L, 64), List.of(network), true, RestartPolicy.NO,
                    Optional.empty()));
            try {
                String pingUrl = "http://d/v" + api + "/_ping";
                String inspectUrl = "http://d/v" + api + "/containers/" + id + "/json";
                long[] clientPing = new long[0];
                long[] clientInspect = new long[0];
                long[] rawPing = new long[0];
                long[] rawInspect = new long[0];
                try (Raw raw = new Raw(socket)) {
                    Op ping = engine::ping;
                    Op inspect = () -> engine.inspectContainer(id).orElseThrow();
                    Op rp = () -> raw.get("/v" + api + "/_ping");
                    Op ri = () -> raw.get("/v" + api + "/containers/" + id + "/json");
                    for (Op op : List.of(ping, inspect, rp, ri)) {
                        time(op, WARMUP);
                    }
                    // Interleaved rounds, so load from elsewhere on the machine hits both alike.
                    for (int round = 0; round < ROUNDS; round++) {
                        clientPing = concat(clientPing, time(ping, n / ROUNDS));
                        rawPing = concat(rawPing, time(rp, n / ROUNDS));
                        clientInspect = concat(clientInspect, time(inspect, n / ROUNDS));
                        rawInspect = concat(rawInspect, time(ri, n / ROUNDS));
                    }
                }
                long[] curlBatchPing = curlBatch(socket, pingUrl);
                long[] curlBatchInspect = curlBatch(socket, inspectUrl);
                long[] curlSpawnPing = curlSpawn(socket, pingUrl);
                long[] curlSpawnInspect = curlSpawn(socket, inspectUrl);
                String report = report(n, api, clientPing, clientInspect, rawPing, rawInspect, curlBatchPing,
                        curlBatchInspect, curlSpawnPing, curlSpawnInspect);
                Files.createDirectories(out.toAbsolutePath().getParent());
                Files.writeString(out, report, StandardCharsets.UTF_8);
                LOG.log(Level.INFO, "docker bench:\n{0}", report);
            } finally {
                engine.removeContainer(id);
            }
        } finally {
            run("docker", "network", "rm", network);
        }
    }

    @FunctionalInterface
    interface Op {
        void call() throws DockerException;
    }

    static long[] concat(long[] a, long[] b) {
        long[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static long[] time(Op op, int n) throws DockerException {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            op.call();
            t[i] = System.nanoTime() - t0;
        }
        return t;
    }

    /** Per-request averages of runs of one curl process fetching {@link #CURL_BATCH} URLs. */
    static long[] curlBatch(Path socket, String url) throws IOException, InterruptedException {
        Path config = Files.createTempFile("dogama-bench", ".curl");
        try {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < CURL_BATCH; i++) {
                sb.append("url = \"").append(url).append("\"\n");
            }
            Files.writeString(config, sb);
            long[] t = new long[CURL_BATCH_RUNS];
            for (int r = 0; r < CURL_BATCH_RUNS; r++) {
                long t0 = System.nanoTime();
                curl(socket, "-K", config.toString());
                t[r] = (System.nanoTime() - t0) / CURL_BATCH;
            }
            return t;
        } finally {
            Files.deleteIfExists(config);
        }
    }

    static long[] curlSpawn(Path socket, String url) throws IOException, InterruptedException {
        long[] t = new long[CURL_SPAWNS];
        for (int i = 0; i < CURL_SPAWNS; i++) {
            long t0 = System.nanoTime();
            curl(socket, url);
            t[i] = System.nanoTime() - t0;
        }
        return t;
    }

    static void curl(Path socket, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sf", "--unix-socket", socket.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("curl failed");
        }
    }

    static String report(int n, String api, long[] clientPing, long[] clientInspect, long[] rawPing,
            long[] rawInspect, long[] batchPing, long[] batchInspect, long[] spawnPing, long[] spawnInspect) {
        StringBuilder sb = new StringBuilder();
        sb.append("Run ").append(Instant.now()).append(", engine API ").append(api).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" CPUs, Java ")
                .append(System.getProperty("java.version")).append(", n=").append(n).append(" per client row\n\n");
        sb.append("| operation | this client, median / p90 / p99 | raw socket floor, median | client overhead"
                + " (median - floor) | curl kept-alive, per request | client / curl kept-alive"
                + " | curl, process per request |\n|---|---|---|---|---|---|---|\n");
        row(sb, "ping", clientPing, rawPing, batchPing, spawnPing);
        row(sb, "container inspect", clientInspect, rawInspect, batchInspect, spawnInspect);
        sb.append("\ncurl kept-alive: one curl process fetching ").append(CURL_BATCH)
                .append(" URLs on one connection, total time / ").append(CURL_BATCH).append(", median of ")
                .append(CURL_BATCH_RUNS).append(" runs. curl per request: median of ").append(CURL_SPAWNS)
                .append(" processes. Raw socket floor: the same request bytes written on one kept-alive"
                        + " junixsocket connection, the answer framed by Content-Length or chunks, nothing checked or parsed.\n");
        return sb.toString();
    }

    static void row(StringBuilder sb, String op, long[] client, long[] raw, long[] batch, long[] spawn) {
        double c = median(client);
        double r = median(raw);
        double b = median(batch);
        sb.append("| ").append(op).append(" | ").append(ms(c)).append(" / ").append(ms(pct(client, 0.90)))
                .append(" / ").append(ms(pct(client, 0.99))).append(" | ").append(ms(r)).append(" | ")
                .append(ms(c - r)).append(" | ").append(ms(b)).append(" | ")
                .append(String.format(Locale.ROOT, "%.2f", c / b)).append(" | ").append(ms(median(spawn)))
                .append(" |\n");
    }

    /**
     * The floor: fixed request bytes on one connection, the answer framed by Content-Length or
     * chunks with no checks and nothing parsed.
     */
    static final class Raw implements AutoCloseable {
        private final AFUNIXSocket socket;
        private final java.io.InputStream in;
        private final java.io.OutputStream out;
        private final byte[] buf = new byte[64 * 1024];
        private int pos;
        private int lim;

        Raw(Path path) throws IOException {
            socket = AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(path));
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        private int next() throws IOException {
            if (pos == lim) {
                lim = in.read(buf, 0, buf.length);
                pos = 0;
                if (lim < 0) {
                    throw new IOException("closed");
                }
            }
            return buf[pos++];
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int b;
            while ((b = next()) != '\n') {
                if (b != '\r') {
                    sb.append((char) b);
                }
            }
            return sb.toString();
        }

        private void skip(long n) throws IOException {
            while (n > 0) {
                if (pos == lim) {
                    next();
                    pos--;
                }
                int k = (int) Math.min(n, lim - pos);
                pos += k;
                n -= k;
            }
        }

        void get(String target) throws DockerException {
            try {
                out.write(("GET " + target + " HTTP/1.1\r\nHost: d\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                long length = -1;
                boolean chunked = false;
                for (String h = line(); !h.isEmpty(); h = line()) {
                    String l = h.toLowerCase(Locale.ROOT);
                    if (l.startsWith("content-length:")) {
                        length = Long.parseLong(l.substring(15).strip());
                    } else if (l.startsWith("transfer-encoding:")) {
                        chunked = true;
                    }
                }
                if (chunked) {
                    for (long size = Long.parseLong(line().strip(), 16); size > 0;
                            size = Long.parseLong(line().strip(), 16)) {
                        skip(size);
                        line();
                    }
                    line();
                } else {
                    skip(length);
                }
            } catch (IOException e) {
                throw new io.dogama.agent.docker.DockerUnavailableException("raw baseline failed", e);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    static double median(long[] t) {
        return pct(t, 0.5);
    }

    static double pct(long[] t, double p) {
        long[] s = t.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.floor(p * s.length))];
    }

    static Path socket() {
        String host = System.getenv("DOCKER_HOST");
        if (host != null && host.startsWith("unix://")) {
            return Path.of(host.substring("unix://".length()));
        }
        return Path.of("/var/run/docker.sock");
    }

    static void run(String... cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of(cmd));
        if (c.getFirst().equals("docker") && Files.isExecutable(Path.of("/usr/bin/docker"))) {
            c.set(0, "/usr/bin/docker");
        }
        ProcessBuilder pb = new ProcessBuilder(c).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("DOCKER_HOST", "unix://" + socket());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("command failed: " + String.join(" ", cmd));
        }
    }
}
