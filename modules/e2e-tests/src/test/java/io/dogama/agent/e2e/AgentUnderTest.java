package io.dogama.agent.e2e;

import io.dogama.agent.client.DogamaClient;
import io.dogama.agent.client.RequestSigner;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One agent from the jlink runtime image with a world of its own: a temporary folder (data
 * directory, secret file 0600 with 32 random bytes, an allowed root reached through a symlink, a
 * folder outside it), an approved network created for the run, a small host port range, and a
 * config naming them. The agent runs as a child process; its output goes to a log file that is
 * copied to {@code modules/e2e-tests/target/e2e-logs} when the run ends. Everything this run creates in Docker
 * carries the run's random token in its name, which is how the tests tell it from the rest of a
 * shared engine. Used by the JUnit extension {@link E2E} and by the load generator.
 */
class AgentUnderTest implements AutoCloseable {
    /** Longest wait for the agent to print that it listens. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Longest wait for the agent to exit after SIGTERM before it is killed. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** Host ports per run; the range lies above the kernel's ephemeral ports (32768-60999 here). */
    static final int HOST_PORT_SPAN = 100;
    static final int HOST_PORT_FLOOR = 61000;
    static final String DEMO_IMAGE = "dogama/demo-http:1";

    private static final Pattern LISTENING = Pattern.compile("dogama-agent: listening on port (\\d+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    private String name;
    private String token;
    private Engine engine;
    private Path base;
    private Path dataDir;
    private Path secretFile;
    private Path root;
    private Path realRoot;
    private Path outside;
    private Path config;
    private Path log;
    private String network;
    private final List<String> extraNetworks = new ArrayList<>();
    private int hostPortMin;
    private int nextHostPort;
    private int listenPort;
    private String secretLine;
    private String pinnedImageId;
    private Process process;
    /** Notified after each line of the agent's output reaches the log file. */
    private final Object logWritten = new Object();
    private Wire wire;
    private DogamaClient client;
    /** Environment for the agent's process on top of the test's own, e.g. JVM options. */
    private final Map<String, String> agentEnvironment;
    /** True if the agent reaches the engine through an {@link EngineLink} the test can cut. */
    private boolean throughLink;
    private EngineLink link;
    /** The size of a tmpfs mounted as the data directory, 0 for none. */
    private long dataTmpfsBytes;

    AgentUnderTest() {
        this(Map.of());
    }

    /** @param agentEnvironment environment variables for the agent's process, e.g. {@code JAVA_TOOL_OPTIONS} */
    AgentUnderTest(Map<String, String> agentEnvironment) {
        this.agentEnvironment = Map.copyOf(agentEnvironment);
    }

    /**
     * The agent will reach the engine through a link the test can cut ({@link #engineLink()}).
     *
     * @return this
     */
    final AgentUnderTest throughEngineLink() {
        throughLink = true;
        return this;
    }

    /**
     * The data directory will be a tmpfs of this size (needs root, as CI has), so that a test can
     * fill it.
     *
     * @param bytes its size
     * @return this
     */
    final AgentUnderTest dataOnTmpfs(long bytes) {
        dataTmpfsBytes = bytes;
        return this;
    }

    /** @return the link to the engine ({@link #throughEngineLink()}) */
    final EngineLink engineLink() {
        return link;
    }

    /** Sets up the world and starts the agent; on failure everything made so far is removed. */
    final void open(String name) {
        this.name = name;
        try {
            prepare();
            launch();
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private void prepare() {
        token = randomToken();
        engine = Engine.connect();
        pinnedImageId = (String) Json.parse(RepoLayout.root().resolve("catalog/demo-http/1.0.0.json")).get("imageId");
        String have = engine.tryRun("image", "inspect", "--format", "{{.Id}}", DEMO_IMAGE).out().strip();
        if (!pinnedImageId.equals(have)) {
            throw new AssertionError("e2e: " + DEMO_IMAGE + " is " + (have.isEmpty() ? "missing" : have)
                    + ", the catalog pins " + pinnedImageId + "; run scripts/demo-image");
        }
        try {
            base = Files.createTempDirectory("dogama-e2e-" + token + "-");
            dataDir = Files.createDirectory(base.resolve("data"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            if (dataTmpfsBytes > 0) {
                Engine.command(List.of("mount", "-t", "tmpfs", "-o", "size=" + dataTmpfsBytes + ",mode=0700", "tmpfs",
                        dataDir.toString()));
            }
            if (throughLink) {
                // its own folder: an allowed root or the data directory may not lie in the socket's folder
                link = new EngineLink(mkdir0755(base.resolve("engine-link")).resolve("docker.sock"),
                        Path.of(engine.socketPath()));
            }
            Path secrets = Files.createDirectory(base.resolve("secrets"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            byte[] secret = new byte[32];
            RANDOM.nextBytes(secret);
            secretLine = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
            secretFile = Files.createFile(secrets.resolve("dogama-agent-hmac"), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
            Files.writeString(secretFile, secretLine + "\n", StandardCharsets.US_ASCII);
            // The configured root is a symlink: a response that names the real folder leaks a path
            // the agent resolved (SPEC 4).
            realRoot = mkdir0755(base.resolve("roots-real"));
            root = Files.createSymbolicLink(base.resolve("roots"), realRoot.getFileName());
            outside = mkdir0755(base.resolve("outside"));
            Files.writeString(outside.resolve("secret.txt"), "outside the allowed root\n");
            log = base.resolve("agent.log");
            config = base.resolve("config.json");
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot prepare the temporary folder", e);
        }
        network = "dogama-e2e-" + token;
        // A plain bridge: ports published on 127.0.0.1 answer (Docker publishes none for --internal).
        engine.run("network", "create", "--label", "dogama-e2e=" + token, network);
        hostPortMin = HOST_PORT_FLOOR + RANDOM.nextInt((65535 - HOST_PORT_FLOOR - HOST_PORT_SPAN) / HOST_PORT_SPAN) * HOST_PORT_SPAN;
        nextHostPort = hostPortMin;
        listenPort = freeLoopbackPort();
        writeConfig();
    }

    private void writeConfig() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("listen", Map.of("host", "127.0.0.1", "port", listenPort));
        c.put("dockerSocket", link != null ? link.path().toString() : engine.socketPath());
        c.put("secretFile", secretFile.toString());
        c.put("dataDir", dataDir.toString());
        c.put("allowedRoots", Map.of("instances", root.toString()));
        c.put("networks", List.of(network));
        c.put("hostIps", List.of("127.0.0.1"));
        c.put("hostPorts", Map.of("min", hostPortMin, "max", hostPortMin + HOST_PORT_SPAN - 1));
        c.put("limits", Map.of("memoryBytes", 1073741824L, "nanoCpus", 2000000000L, "pidsLimit", 512, "instances", 50));
        c.put("allowRootUser", false);
        try {
            Files.writeString(config, Json.write(c), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch() {
        launchWith(RepoLayout.agentLauncher());
    }

    /** Starts the agent with this launcher (one that ends in the image's bin/dogama-agent) and waits until it listens. */
    final void launchWith(Path launcher) {
        launchWith(launcher, true);
    }

    /**
     * As {@link #launchWith(Path)}; without the signed health check at the end when the test expects
     * the agent to refuse signed requests for a while (a damaged nonce journal).
     */
    final void launchWith(Path launcher, boolean checkHealth) {
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--config", config.toString());
        pb.environment().remove("DOGAMA_AGENT_CONFIG");
        pb.environment().putAll(agentEnvironment);
        pb.redirectErrorStream(true);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        CompletableFuture<Integer> ready = new CompletableFuture<>();
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot start the agent", e);
        }
        Process p = process;
        Thread.ofVirtual().name("agent-log-" + name).start(() -> pump(p, ready));
        int port;
        try {
            port = ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("e2e: the agent did not start: " + e.getCause().getMessage() + "\n" + logTail());
        } catch (TimeoutException e) {
            throw new AssertionError("e2e: the agent did not say it listens within " + START_TIMEOUT + "\n" + logTail());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("e2e: interrupted", e);
        }
        if (port != listenPort) {
            throw new AssertionError("e2e: the agent listens on " + port + ", the config says " + listenPort);
        }
        if (client != null) {
            client.close();
        }
        client = DogamaClient.builder().uri(URI.create("http://127.0.0.1:" + port)).secret(secretLine).build();
        wire = new Wire("127.0.0.1", port, client, RequestSigner.of(secretLine));
        if (!checkHealth) {
            return;
        }
        Wire.Response health = wire.get("/v1/health");
        if (health.status() != 200) {
            throw new AssertionError("e2e: signed health after start answered " + health + "\n" + logTail());
        }
    }

    /** Copies the agent's output to the log file and reports the listening port. */
    private void pump(Process p, CompletableFuture<Integer> ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.newLine();
                out.flush();
                synchronized (logWritten) {
                    logWritten.notifyAll();
                }
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    ready.complete(Integer.parseInt(m.group(1)));
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IllegalStateException("the agent's output ended (exit "
                + p.onExit().join().exitValue() + ")"));
    }

    /** Stops the agent (SIGTERM, then SIGKILL after {@link #STOP_TIMEOUT}) and starts it again on the same folder. */
    final void restart() {
        stopAgent();
        launch();
    }

    /** @return the agent's exit status */
    final int stopAgent() {
        Process p = process;
        if (p == null) {
            return -1;
        }
        process = null;
        // bin/dogama-agent execs java, so the launcher's process is the JVM and SIGTERM reaches it
        // (ProcessE2ETest checks that); a JVM below it would be an older launcher: signal that one.
        List<ProcessHandle> jvms = p.toHandle().descendants().toList();
        if (jvms.isEmpty()) {
            // SIGTERM; through the handle, since Process.destroy also closes the agent's output on this
            // side, and the log would miss what the agent writes while it stops.
            p.toHandle().destroy();
        }
        jvms.forEach(ProcessHandle::destroy);
        try {
            if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                jvms.forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("e2e: the agent ignored SIGTERM for " + STOP_TIMEOUT + "; killed");
            }
            for (ProcessHandle j : jvms) {
                j.onExit().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("e2e: interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            jvms.forEach(ProcessHandle::destroyForcibly);
            throw new AssertionError("e2e: the agent's JVM did not exit", e);
        }
        return p.exitValue();
    }

    /** Stops the agent, removes this run's containers and networks, keeps the log, deletes the folder; idempotent. */
    @Override
    public void close() {
        List<Throwable> failures = new ArrayList<>();
        run(failures, this::stopAgent);
        if (client != null) {
            DogamaClient c = client;
            client = null;
            wire = null;
            run(failures, c::close);
        }
        if (engine != null && token != null) {
            run(failures, () -> engine.removeForce(engine.containersOf(token)));
            List<String> nets = new ArrayList<>(extraNetworks);
            if (network != null) {
                nets.add(network);
            }
            for (String n : nets) {
                run(failures, () -> engine.tryRun("network", "rm", n));
            }
        }
        if (link != null) {
            EngineLink l = link;
            link = null;
            run(failures, l::close);
        }
        if (dataTmpfsBytes > 0 && dataDir != null) {
            Path d = dataDir;
            run(failures, () -> Engine.command(List.of("umount", d.toString())));
        }
        if (base != null) {
            run(failures, this::keepLog);
            Path dir = base;
            run(failures, () -> deleteTree(dir));
            base = null;
        }
        token = null;
        network = null;
        extraNetworks.clear();
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("e2e: clean-up failed");
            failures.forEach(e::addSuppressed);
            throw e;
        }
    }

    private static void run(List<Throwable> failures, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException | Error e) {
            failures.add(e);
        }
    }

    private void keepLog() {
        if (!Files.exists(log)) {
            return;
        }
        try {
            Path dir = Files.createDirectories(RepoLayout.root().resolve("modules/e2e-tests/target/e2e-logs"));
            Files.copy(log, dir.resolve(name + "-" + token + ".log"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ accessors and helpers

    final String token() {
        return token;
    }

    final Engine engine() {
        return engine;
    }

    /** @return the agent's own Java client (modules/client), signing with this run's secret */
    final DogamaClient client() {
        return client;
    }

    /** @return signed and unsigned requests exactly as written, every answer checked against docs/openapi.yaml */
    final Wire wire() {
        return wire;
    }

    /** @return the configured allowed root (a symlink to {@link #realRoot()}) */
    final Path root() {
        return root;
    }

    final Path realRoot() {
        return realRoot;
    }

    /** @return a folder outside every allowed root */
    final Path outside() {
        return outside;
    }

    final Path dataDir() {
        return dataDir;
    }

    /** @return the running agent's process (the launcher's), or null while it is stopped */
    final Process process() {
        return process;
    }

    /** @return the port the agent listens on (127.0.0.1) */
    final int listenPort() {
        return listenPort;
    }

    /** @return the administrator config the agent runs with */
    final Path config() {
        return config;
    }

    /** @return everything the agent wrote to stdout and stderr so far, every run of this world */
    final String logText() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the log, from {@code from} on, holds {@code line}, woken by each line the agent writes.
     *
     * @return that part of the log
     * @throws AssertionError if the line is not there within {@code timeout}
     */
    final String awaitLog(int from, String line, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (logWritten) {
            while (true) {
                String text = logText();
                String tail = text.length() > from ? text.substring(from) : "";
                if (tail.contains(line)) {
                    return tail;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("e2e: no '" + line + "' in the agent's log:\n" + tail);
                }
                TimeUnit.NANOSECONDS.timedWait(logWritten, left);
            }
        }
    }

    /** Starts the agent again after {@link #stopAgent()}; nothing if it runs. */
    final void ensureRunning() {
        if (process == null) {
            launch();
        }
    }

    final Path base() {
        return base;
    }

    /** @return the agent's secret file (mode 0600), for scripts/dogama-curl */
    final Path secretFile() {
        return secretFile;
    }

    /** @return the approved network of this run */
    final String network() {
        return network;
    }

    final String pinnedImageId() {
        return pinnedImageId;
    }

    /** @return an existing network that the administrator did not approve */
    final String unapprovedNetwork() {
        String n = "dogama-e2e-" + token + "-unapproved";
        if (!extraNetworks.contains(n)) {
            engine.run("network", "create", "--label", "dogama-e2e=" + token, n);
            extraNetworks.add(n);
        }
        return n;
    }

    /** @return a valid instance ID unique to this run */
    final String instanceId(String suffix) {
        return "e2e-" + token + "-" + suffix;
    }

    /** @return an existing data folder for the instance below the configured root, with an index.html */
    final Path instanceData(String instanceId) {
        try {
            Path dir = root.resolve(instanceId);
            mkdir0755(dir);
            Path data = mkdir0755(dir.resolve("data"));
            Path index = data.resolve("index.html");
            if (!Files.exists(index)) {
                Files.writeString(index, "hello from " + instanceId + "\n");
            }
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return a host port of this run's range that nothing listens on now */
    final synchronized int freeHostPort() {
        while (nextHostPort < hostPortMin + HOST_PORT_SPAN) {
            int p = nextHostPort++;
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
                return p;
            } catch (IOException busy) {
                // held by something else on this host: take the next
            }
        }
        throw new AssertionError("e2e: host port range " + hostPortMin + "+" + HOST_PORT_SPAN + " used up");
    }

    final int hostPortMin() {
        return hostPortMin;
    }

    final int hostPortMax() {
        return hostPortMin + HOST_PORT_SPAN - 1;
    }

    /** @return the demo plan of a new instance {@code instanceId(name)}, created and started through the agent */
    final Plans.Plan running(String name) {
        Plans.Plan p = plan(instanceId(name));
        int created = wire().post("/v1/instances", p.json()).status();
        int started = wire().post(p.path() + "/start").status();
        if (created != 201 || started != 200) {
            throw new AssertionError("create " + p.id() + ": " + created + ", start: " + started);
        }
        return p;
    }

    /** @return the demo plan for the instance: its data folder, a free host port, the run's network */
    final Plans.Plan plan(String instanceId) {
        return Plans.demo(instanceId, instanceData(instanceId).toString(), freeHostPort(), network);
    }

    final String logTail() {
        try {
            if (log == null || !Files.exists(log)) {
                return "(no agent log)";
            }
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "--- agent log (last lines) ---\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(agent log unreadable)";
        }
    }

    static Path mkdir0755(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectory(dir);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    private static String randomToken() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            b.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    private static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot delete " + dir, e);
        }
    }
}
