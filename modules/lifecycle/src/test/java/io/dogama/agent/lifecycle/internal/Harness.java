package io.dogama.agent.lifecycle.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.lifecycle.LifecycleException;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanDigest;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Template;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One test's world, against the REAL engine: a private network, an allowed root and a data
 * directory, the embedded catalog (or, if the local demo image is not the pinned one, a test catalog
 * pinning the local image), a registry and the operations. Everything the test makes carries the
 * custom label {@code test-run=<run id>} and is removed by {@link #close()}. Verification goes
 * through the docker CLI, never through the client under test.
 */
final class Harness implements AutoCloseable {
    static final String DEMO_IMAGE = "dogama/demo-http:1";
    static final String TEMPLATE = "demo-http";
    static final String VERSION = "1.0.0";
    /** Longest a CLI call may take. */
    static final long CLI_TIMEOUT_SECONDS = 120;
    /** Host ports used by the tests; far above the usual ephemeral users. */
    static final int PORT_MIN = 42000;
    static final int PORT_MAX = 48999;
    /** The file the tests keep in every bind source, and check afterwards. */
    static final String KEPT_FILE = "index.html";

    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * The next host port {@link #port()} hands out: from a random place in the range, then one after another, so that
     * two plans of one test never draw the same port by chance (two random draws did, once in 7,000: a CI run's
     * {@code port_conflict} beside the violation a test expected).
     */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
            new java.util.concurrent.atomic.AtomicInteger(RANDOM.nextInt(PORT_MAX - PORT_MIN + 1));

    final String run;
    final Path base;
    final Path root;
    final Path dataDir;
    final String network;
    final Path socket;
    final PlanPolicy policy;
    final Catalog catalog;
    /** The fault seam of {@link #ops}: tests set {@code faults.current}. */
    final Switch faults = new Switch();
    DockerEngine docker;
    Registry registry;
    Operations ops;
    private int counter;

    Harness() throws Exception {
        byte[] b = new byte[4];
        RANDOM.nextBytes(b);
        run = HexFormat.of().formatHex(b);
        socket = socket();
        base = Files.createTempDirectory("dogama-lc-").toRealPath();
        // The demo container runs as 65534: it must be able to reach its bind source.
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        root = Files.createDirectory(base.resolve("instances"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        dataDir = Files.createDirectory(base.resolve("data"));
        network = "dogama-test-net-" + run;
        cli("network", "create", "--internal", "--label", "test-run=" + run, network);
        AdminConfig config = new AdminConfig(new AdminConfig.Listen("127.0.0.1", 8480), socket,
                base.resolve("secret"), dataDir, Map.of("instances", root), List.of(network), List.of("127.0.0.1"),
                new AdminConfig.PortRange(PORT_MIN, PORT_MAX),
                new AdminConfig.Limits(1L << 30, 2_000_000_000L, 1024, 200), false);
        catalog = catalog(base);
        policy = PlanPolicy.create(config, catalog);
        docker = DockerEngine.connect(socket);
        registry = Registry.open(dataDir, 200);
        ops = Agents.start(docker, registry, policy, faults);
    }

    /** @return the engine socket from DOCKER_HOST (unix://...) or /var/run/docker.sock; fails clearly if none */
    static Path socket() {
        String host = System.getenv("DOCKER_HOST");
        Path p = host != null && !host.isBlank() ? Path.of(host.startsWith("unix://") ? host.substring(7) : "/nonexistent")
                : Path.of("/var/run/docker.sock");
        if (host != null && !host.isBlank() && !host.startsWith("unix://")) {
            return fail("DOCKER_HOST must be unix:///path for the lifecycle tests, got " + host);
        }
        if (!Files.exists(p)) {
            return fail("no Docker engine socket at " + p + ": start one with scripts/dockerd and export DOCKER_HOST");
        }
        return p;
    }

    /**
     * The embedded catalog if its demo template pins the local demo image; otherwise a catalog
     * folder with the same template pinned to the local image's ID (a build where the demo image was
     * rebuilt differently must still test the lifecycle).
     */
    private Catalog catalog(Path dir) throws PolicyException, IOException {
        String localId = cli("image", "inspect", "--format", "{{.Id}}", DEMO_IMAGE);
        Catalog embedded = Catalog.embedded();
        Template t = embedded.find(TEMPLATE, VERSION).orElseGet(() -> fail("embedded catalog lacks demo-http 1.0.0"));
        if (t.imageId().equals(Optional.of(localId))) {
            return embedded;
        }
        Path c = Files.createDirectories(dir.resolve("catalog/" + TEMPLATE));
        String json;
        try (var in = Catalog.class.getResourceAsStream(Catalog.RESOURCE_DIR + TEMPLATE + "/" + VERSION + ".json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        json = json.replace(t.imageId().orElseThrow(), localId);
        Files.writeString(c.resolve(VERSION + ".json"), json);
        Files.writeString(dir.resolve("catalog/" + Catalog.LOCK_FILE),
                sha256(json.getBytes(StandardCharsets.UTF_8)) + "  " + TEMPLATE + "/" + VERSION + ".json\n");
        return Catalog.load(dir.resolve("catalog"));
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            return fail(e);
        }
    }

    // ---------------------------------------------------------------- plans

    /** @return a fresh instance ID for this run */
    String newId() {
        return "t-" + run + "-" + (++counter);
    }

    /** @return a free-looking port in the test range */
    static int port() {
        return PORT_MIN + Math.floorMod(NEXT_PORT.getAndIncrement(), PORT_MAX - PORT_MIN + 1);
    }

    /**
     * @return a bind source below the allowed root holding {@link #KEPT_FILE} with known content
     */
    Path source(String name) throws IOException {
        Path d = Files.createDirectory(root.resolve(name));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(d.resolve(KEPT_FILE), "kept " + run + " " + name + "\n");
        return d;
    }

    /** Asserts the bind source still holds exactly the file written by {@link #source}. */
    void assertKept(Path source, String name) throws IOException {
        assertTrue(Files.isDirectory(source), "bind source must still exist");
        try (Stream<Path> s = Files.list(source)) {
            assertEquals(List.of(KEPT_FILE), s.map(p -> p.getFileName().toString()).sorted().toList(),
                    "bind source contents changed");
        }
        assertEquals("kept " + run + " " + name + "\n", Files.readString(source.resolve(KEPT_FILE)),
                "bind-mounted file changed");
    }

    /**
     * @param id       instance ID
     * @param source   bind source for /data
     * @param hostPort host port for 8080
     * @param greeting the GREETING value (varies the digest)
     * @return the plan JSON
     */
    String plan(String id, Path source, int hostPort, String greeting) {
        return """
                {"instanceId":"%s","templateId":"%s","templateVersion":"%s","image":"%s","capAdd":[],
                 "env":{"GREETING":"%s"},
                 "mounts":[{"source":"%s","target":"/data","readOnly":false}],
                 "ports":[{"name":"http","containerPort":8080,"protocol":"tcp","hostIp":"127.0.0.1","hostPort":%d}],
                 "resources":{"memoryBytes":33554432,"nanoCpus":200000000,"pidsLimit":64},
                 "labels":{"test-run":"%s"},
                 "networks":["%s"]}
                """.formatted(id, TEMPLATE, VERSION, DEMO_IMAGE, greeting, source, hostPort, run, network);
    }

    /** Longest a test step waits for another before it fails. */
    static final long STEP_WAIT_SECONDS = 30;

    /** Waits (bounded by {@link #STEP_WAIT_SECONDS}) for a step of the test; fails if it never comes. */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(STEP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("a step of the test never came");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Waits (bounded by {@link #STEP_WAIT_SECONDS}) until {@code t} has ended or waits in {@link EarlyCall#settle} for
     * an engine call it began; fails with {@code failure} if neither comes. The caller then asks which it was.
     */
    static void awaitEndOrSettle(Thread t, String failure) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_WAIT_SECONDS);
        while (t.isAlive() && !inSettle(t)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure);
            }
            Thread.onSpinWait();
        }
    }

    private static boolean inSettle(Thread t) {
        return java.util.Arrays.stream(t.getStackTrace()).anyMatch(
                f -> f.getClassName().equals(EarlyCall.class.getName()) && f.getMethodName().equals("settle"));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String digest(String planJson) {
        return switch (PlanParser.parse(bytes(planJson))) {
            case Outcome.Ok<Plan> ok -> PlanDigest.of(ok.value());
            case Outcome.Failed<Plan> f -> fail("test plan does not parse: " + f);
        };
    }

    static String replaceBody(String planJson, long expectedRevision) {
        return "{\"plan\":" + planJson + ",\"expectedRevision\":" + expectedRevision + "}";
    }

    // ---------------------------------------------------------------- outcomes

    static <T> T ok(Outcome<T> o) {
        return switch (o) {
            case Outcome.Ok<T> ok -> ok.value();
            case Outcome.Failed<T> f -> fail("expected success, got " + f);
        };
    }

    static void failedWith(ProblemCode code, Outcome<?> o) {
        switch (o) {
            case Outcome.Ok<?> ok -> fail("expected " + code.code() + ", got success " + ok.value());
            case Outcome.Failed<?> f -> assertEquals(code, f.code(), "problem code: " + f);
        }
    }

    // ---------------------------------------------------------------- registry

    Optional<InstanceRecord> record(String id) throws RegistryException {
        return switch (registry.get(id)) {
            case Lookup.Found f -> Optional.of(f.record());
            case Lookup.Absent a -> Optional.empty();
            case Lookup.Tampered t -> fail("record of " + id + " fails authentication");
        };
    }

    InstanceRecord requireRecord(String id) throws RegistryException {
        return record(id).orElseGet(() -> fail("no record for " + id));
    }

    /**
     * Simulates the agent's process ending (after a crash: nothing of the old operations runs any
     * more) and a new agent starting on the same data directory: new engine client, new registry
     * handle, start-up reconciliation.
     */
    void restartAgent() throws RegistryException, DockerException, LifecycleException {
        restartAgent(io.dogama.agent.lifecycle.Reconciliations.NONE);
    }

    /** As {@link #restartAgent()}, telling {@code listener} what the reconciliation did. */
    void restartAgent(io.dogama.agent.lifecycle.Reconciliations listener)
            throws RegistryException, DockerException, LifecycleException {
        restartAgent(listener, Faults.NONE);
    }

    /**
     * As {@link #restartAgent()}, with {@code during} as the fault seam of the start-up reconciliation only (a
     * {@link Halt} there reaches the caller, as a crash of the new agent would end it).
     */
    void restartAgent(io.dogama.agent.lifecycle.Reconciliations listener, Faults during)
            throws RegistryException, DockerException, LifecycleException {
        registry.close();
        docker.close();
        faults.current = during;
        docker = DockerEngine.connect(socket);
        registry = Registry.open(dataDir, 200);
        try {
            ops = Agents.start(docker, registry, policy, faults, listener);
        } finally {
            faults.current = Faults.NONE;
        }
    }

    /**
     * As {@link #restartAgent(io.dogama.agent.lifecycle.Reconciliations)}, after the registry's file and key were
     * lost while the agent was down (a data volume made anew): the agent starts with a new, empty registry.
     */
    void restartAgentWithoutRegistry(io.dogama.agent.lifecycle.Reconciliations listener)
            throws RegistryException, DockerException, LifecycleException, IOException {
        registry.close();
        Files.delete(dataDir.resolve("registry.dat"));
        Files.delete(dataDir.resolve("registry.key"));
        restartAgent(listener);
    }

    // ---------------------------------------------------------------- the engine, seen through the CLI

    /**
     * A container as the CLI reports it.
     *
     * @param id        full ID
     * @param name      name without slash
     * @param status    state word
     * @param startedAt last start
     * @param digest    plan-digest label, or empty string
     * @param instance  instance-id label, or empty string
     */
    record Seen(String id, String name, String status, String startedAt, String digest, String instance) {
        boolean running() {
            return "running".equals(status);
        }
    }

    /** @return the container, if it exists */
    Optional<Seen> seen(String idOrName) {
        Result r = tryCli("container", "inspect", "--format",
                "{{.Id}}|{{.Name}}|{{.State.Status}}|{{.State.StartedAt}}|"
                        + "{{index .Config.Labels \"io.dogama.plan-digest\"}}|{{index .Config.Labels \"io.dogama.instance-id\"}}",
                idOrName);
        if (r.exit() != 0) {
            return Optional.empty();
        }
        String[] f = r.out().split("\\|", -1);
        return Optional.of(new Seen(f[0], f[1].startsWith("/") ? f[1].substring(1) : f[1], f[2], f[3],
                f[4].equals("<no value>") ? "" : f[4], f[5].equals("<no value>") ? "" : f[5]));
    }

    /** @return every container that carries the instance's label or a name starting with {@code dogama-<id>} */
    List<Seen> containersOf(String id) {
        Set<String> ids = new LinkedHashSet<>();
        ids.addAll(lines(cli("ps", "-aq", "--no-trunc", "--filter", "label=io.dogama.instance-id=" + id)));
        // The name filter matches substrings: keep only exact names of ours.
        for (String line : lines(cli("ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Names}}", "--filter",
                "name=dogama-" + id))) {
            String[] f = line.split(" ", 2);
            if (f[1].equals("dogama-" + id) || f[1].matches("dogama-" + id + "-r[0-9]+")) {
                ids.add(f[0]);
            }
        }
        List<Seen> out = new ArrayList<>();
        for (String c : ids) {
            seen(c).ifPresent(out::add);
        }
        return out;
    }

    private static List<String> lines(String s) {
        return s.isBlank() ? List.of() : List.of(s.split("\n"));
    }

    /** What a test expects at the end of a run. */
    enum End {
        /** No record and no container. */
        ABSENT,
        /** A settled record with exactly one container that matches it. */
        SETTLED,
        /** INTERVENTION_REQUIRED with every container stopped and named by the record. */
        INTERVENTION
    }

    /**
     * The invariant of every run: no orphan (a container of the instance the record does not name),
     * no incomplete or duplicate container, and a record in the expected end state.
     *
     * @return the record, if any
     */
    Optional<InstanceRecord> assertEnd(String id, End end) throws RegistryException {
        return assertEnd(id, end, Set.of());
    }

    /**
     * As {@link #assertEnd(String, End)}, not counting containers a test made itself.
     *
     * @param strangers IDs of containers the test made (an impostor, a name squatter)
     */
    Optional<InstanceRecord> assertEnd(String id, End end, Set<String> strangers) throws RegistryException {
        Optional<InstanceRecord> rec = record(id);
        List<Seen> containers = containersOf(id).stream().filter(c -> !strangers.contains(c.id())).toList();
        switch (end) {
            case ABSENT -> {
                assertTrue(rec.isEmpty(), "expected no record, got " + rec);
                assertEquals(List.of(), containers, "no container of a deleted/never-created instance may remain");
            }
            case SETTLED -> {
                InstanceRecord r = rec.orElseGet(() -> fail("expected a record"));
                assertTrue(Set.of(InstanceState.CREATED, InstanceState.RUNNING, InstanceState.STOPPED)
                        .contains(r.state()), "expected a settled state, got " + r.state());
                assertTrue(r.prior().isEmpty(), "a settled record has no prior");
                assertEquals(1, containers.size(), "exactly one container expected: " + containers);
                Seen c = containers.getFirst();
                assertEquals(r.containerId(), Optional.of(c.id()), "the record names the container");
                assertEquals("dogama-" + id, c.name());
                assertEquals(r.planDigest(), c.digest());
                assertEquals(r.state() == InstanceState.RUNNING, c.running(), "run state agrees with " + r.state());
            }
            case INTERVENTION -> {
                InstanceRecord r = rec.orElseGet(() -> fail("expected a record"));
                assertEquals(InstanceState.INTERVENTION_REQUIRED, r.state());
                Set<String> named = new HashSet<>();
                r.containerId().ifPresent(named::add);
                r.prior().flatMap(InstanceRecord.Prior::containerId).ifPresent(named::add);
                assertTrue(containers.size() <= 2, "at most the new and the old container: " + containers);
                for (Seen c : containers) {
                    assertTrue(named.contains(c.id()), "container not named by the record (orphan): " + c);
                    assertTrue(!c.running(), "left running in INTERVENTION_REQUIRED: " + c);
                    // Each in its own slot: a container named in the other one fails its identity check for good.
                    if (r.containerId().equals(Optional.of(c.id()))) {
                        assertEquals(r.planDigest(), c.digest(), "the record's container is not of its plan: " + c);
                    } else {
                        assertEquals(r.prior().orElseThrow().planDigest(), c.digest(),
                                "the prior's container is not of the prior plan: " + c);
                    }
                }
            }
        }
        return rec;
    }

    // ---------------------------------------------------------------- CLI

    record Result(int exit, String out, String err) {
    }

    static String cliPath() {
        return Files.isExecutable(Path.of("/usr/bin/docker")) ? "/usr/bin/docker" : "docker";
    }

    String cli(String... args) {
        Result r = tryCli(args);
        if (r.exit() != 0) {
            return fail("docker " + String.join(" ", args) + " exited " + r.exit() + ": " + r.err());
        }
        return r.out();
    }

    Result tryCli(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(cliPath());
        Collections.addAll(cmd, args);
        try {
            Path out = Files.createTempFile("dogama-cli", ".out");
            Path err = Files.createTempFile("dogama-cli", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
                pb.environment().put("DOCKER_HOST", "unix://" + socket);
                Process p = pb.start();
                if (!p.waitFor(CLI_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return fail("docker " + String.join(" ", args) + " did not finish in " + CLI_TIMEOUT_SECONDS + " s");
                }
                return new Result(p.exitValue(), Files.readString(out).strip(), Files.readString(err).strip());
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            return fail("cannot run the docker CLI: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }

    /** Makes a container the agent did not make (an impostor, a forgery, a stranger), labelled for clean-up. */
    String strangerContainer(String name, Map<String, String> labels, boolean start) {
        List<String> args = new ArrayList<>(List.of(start ? "run" : "create"));
        if (start) {
            args.add("-d");
        }
        args.addAll(List.of("--name", name, "--init", "--network", network, "--label", "test-run=" + run));
        labels.forEach((k, v) -> args.addAll(List.of("--label", k + "=" + v)));
        args.add(DEMO_IMAGE);
        return cli(args.toArray(String[]::new));
    }

    @Override
    public void close() throws IOException {
        try {
            registry.close();
        } finally {
            docker.close();
            for (String c : lines(cli("ps", "-aq", "--no-trunc", "--filter", "label=test-run=" + run))) {
                tryCli("rm", "-f", c);
            }
            tryCli("network", "rm", network);
            delete(base);
        }
    }

    private static void delete(Path p) throws IOException {
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(p)) {
                for (Path c : s.toList()) {
                    delete(c);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    // ---------------------------------------------------------------- faults

    /** A simulated crash: an Error nothing in the lifecycle catches, so no clean-up runs. */
    static final class Halt extends Error {
        @Serial
        private static final long serialVersionUID = 1L;

        Halt(Step step) {
            super("halted at " + step);
        }
    }

    /** What a scripted fault does at its step. */
    @FunctionalInterface
    interface Action {
        void run(Step step) throws DockerException;
    }

    /** Throws a simulated engine failure. */
    static final Action FAIL = step -> {
        // a refusal the engine answers with 400 (an engine 5xx would be docker_unavailable: Problems)
        throw new DockerApiException("injected fault at " + step, 400);
    };

    /** Halts, like a crash. */
    static final Action HALT = step -> {
        throw new Halt(step);
    };

    /** A fault script: each step's action runs once, the first time the step is reached. */
    static final class Script implements Faults {
        private final Map<Step, Action> actions = Collections.synchronizedMap(new EnumMap<>(Step.class));
        final List<Step> reached = Collections.synchronizedList(new ArrayList<>());

        Script on(Step step, Action action) {
            actions.put(step, action);
            return this;
        }

        @Override
        public void at(Step step) throws DockerException {
            reached.add(step);
            Action a = actions.remove(step);
            if (a != null) {
                a.run(step);
            }
        }

        boolean reached(Step step) {
            return reached.contains(step);
        }
    }

    /** Lets a test swap the fault script of the running operations. */
    static final class Switch implements Faults {
        volatile Faults current = Faults.NONE;

        @Override
        public void at(Step step) throws DockerException {
            current.at(step);
        }
    }
}
