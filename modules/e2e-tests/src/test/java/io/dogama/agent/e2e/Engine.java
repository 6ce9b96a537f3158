package io.dogama.agent.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Docker engine as the tests see it: through the 20.10 CLI ({@code /usr/bin/docker}), an
 * observer independent of the agent's own Docker client. Used for set-up, for what the agent
 * created, and for "Docker was left unchanged".
 */
final class Engine {
    /** Preferred CLI: the one matching the engine (ENVIRONMENT.md); the docker on PATH is a newer client. */
    static final String CLI = Files.isExecutable(Path.of("/usr/bin/docker")) ? "/usr/bin/docker" : "docker";
    /** Longest a single CLI call may take. */
    static final Duration CLI_TIMEOUT = Duration.ofSeconds(60);

    private final String dockerHost;

    private Engine(String dockerHost) {
        this.dockerHost = dockerHost;
    }

    /** @return the engine of {@code DOCKER_HOST} (default the system socket); fails clearly if it does not answer */
    static Engine connect() {
        String host = System.getenv("DOCKER_HOST");
        if (host == null || host.isBlank()) {
            host = "unix:///var/run/docker.sock";
        }
        if (!host.startsWith("unix://")) {
            throw new AssertionError("e2e: DOCKER_HOST must be unix:///path, is " + host);
        }
        Engine e = new Engine(host);
        Result r = e.tryRun("version", "--format", "{{.Server.APIVersion}}");
        if (r.exit() != 0 || r.out().isBlank()) {
            throw new AssertionError("e2e: no Docker engine answers at " + host + " (start one: DOCKER_HOST=$(scripts/dockerd)): "
                    + r.err().strip());
        }
        return e;
    }

    String dockerHost() {
        return dockerHost;
    }

    /** @return the engine's Unix socket path */
    String socketPath() {
        return dockerHost.substring("unix://".length());
    }

    /** Outcome of one CLI call. */
    record Result(int exit, String out, String err) {
    }

    /** @return stdout of a CLI call that must succeed */
    String run(String... args) {
        Result r = tryRun(args);
        if (r.exit() != 0) {
            throw new AssertionError("e2e: docker " + String.join(" ", args) + " failed (" + r.exit() + "): " + r.err().strip());
        }
        return r.out();
    }

    Result tryRun(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(CLI);
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("DOCKER_HOST", dockerHost);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process p = pb.start();
            CompletableFuture<String> err = readAsync(p.getErrorStream());
            CompletableFuture<String> out = readAsync(p.getInputStream());
            if (!p.waitFor(CLI_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("e2e: docker " + String.join(" ", args) + " did not finish in " + CLI_TIMEOUT);
            }
            return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot run " + CLI, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("e2e: interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("e2e: cannot read the output of docker " + String.join(" ", args), e);
        }
    }

    /**
     * Runs a host command that must succeed (e.g. {@code mount}), bounded like a CLI call.
     *
     * @param cmd the command and its arguments
     */
    static void command(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process p = pb.start();
            CompletableFuture<String> out = readAsync(p.getInputStream());
            if (!p.waitFor(CLI_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("e2e: " + String.join(" ", cmd) + " did not finish in " + CLI_TIMEOUT);
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("e2e: " + String.join(" ", cmd) + " failed (" + p.exitValue() + "): "
                        + out.get(10, TimeUnit.SECONDS).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot run " + cmd.getFirst(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("e2e: interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("e2e: cannot read the output of " + String.join(" ", cmd), e);
        }
    }

    private static CompletableFuture<String> readAsync(InputStream in) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    // ------------------------------------------------------------------ views

    /** @return {@code docker inspect} of one container, or null if it does not exist */
    Map<String, Object> inspect(String container) {
        Result r = tryRun("container", "inspect", container);
        if (r.exit() != 0) {
            if (r.err().contains("No such")) {
                return null;
            }
            throw new AssertionError("e2e: docker inspect " + container + " failed: " + r.err().strip());
        }
        List<Object> list = Json.parseArray(r.out());
        return Json.object(list.getFirst());
    }

    /** @return the full IDs and names of every container (all states) */
    List<String[]> containers() {
        List<String[]> out = new ArrayList<>();
        for (String line : run("ps", "-a", "--no-trunc", "--format",
                "{{.ID}}\t{{.Names}}\t{{.Label \"io.dogama.instance-id\"}}").split("\n")) {
            if (!line.isBlank()) {
                out.add(line.split("\t", -1));
            }
        }
        return out;
    }

    /** @return IDs of the containers whose name or instance-id label contains the token */
    List<String> containersOf(String token) {
        List<String> ids = new ArrayList<>();
        for (String[] c : containers()) {
            if (c[1].contains(token) || (c.length > 2 && c[2].contains(token))) {
                ids.add(c[0]);
            }
        }
        return ids;
    }

    /**
     * The state of this run's containers, exactly: ID, name, state, start and finish times, restart
     * count, image and limits. Equal snapshots mean the agent created, removed, started, stopped,
     * restarted, renamed or updated none of them.
     */
    record Snapshot(Map<String, String> containers) {
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            containers.forEach((k, v) -> b.append("\n  ").append(v));
            return b.toString();
        }
    }

    Snapshot snapshot(String token) {
        List<String> ids = containersOf(token);
        Map<String, String> out = new TreeMap<>();
        if (ids.isEmpty()) {
            return new Snapshot(out);
        }
        List<String> args = new ArrayList<>(List.of("container", "inspect", "--format",
                "{{.Id}} {{.Name}} {{.State.Status}} {{.State.StartedAt}} {{.State.FinishedAt}} {{.RestartCount}} "
                        + "{{.Image}} {{.HostConfig.Memory}} {{.HostConfig.NanoCpus}} {{.HostConfig.PidsLimit}}"));
        args.addAll(ids);
        for (String line : run(args.toArray(String[]::new)).split("\n")) {
            if (!line.isBlank()) {
                out.put(line.substring(0, line.indexOf(' ')), line);
            }
        }
        return new Snapshot(out);
    }

    /**
     * @return every container event between the two instants whose container name or instance-id
     *         label contains the token, as "action name" lines (create, start, die, destroy, rename,
     *         update, kill, ... ; the engine reports no event for an inspect)
     */
    List<String> eventsOf(String token, Instant since, Instant until) {
        String out = run("events", "--since", epoch(since), "--until", epoch(until), "--filter", "type=container",
                "--format", "{{json .}}");
        List<String> hits = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> ev = Json.parse(line);
            Map<String, Object> actor = Json.object(ev.get("Actor"));
            Map<String, Object> attrs = actor.get("Attributes") == null ? Map.of() : Json.object(actor.get("Attributes"));
            String name = String.valueOf(attrs.getOrDefault("name", ""));
            String label = String.valueOf(attrs.getOrDefault("io.dogama.instance-id", ""));
            if (name.contains(token) || label.contains(token)) {
                hits.add(ev.get("Action") + " " + name);
            }
        }
        return hits;
    }

    private static String epoch(Instant t) {
        return t.getEpochSecond() + "." + String.format("%09d", t.getNano());
    }

    /** Removes the containers, ignoring those already gone. */
    void removeForce(List<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        List<String> args = new ArrayList<>(List.of("rm", "-f"));
        args.addAll(ids);
        tryRun(args.toArray(String[]::new));
    }
}
