package io.dogama.agent.docker;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds the real engine for integration tests (DOCKER_HOST {@code unix://...}, else
 * {@code /var/run/docker.sock}) and runs the repository's scripts and the docker CLI for test
 * set-up only. The client under test never goes through the CLI.
 */
public final class TestDocker {
    /** The demo image of SPEC section 12. */
    public static final String DEMO_IMAGE = "dogama/demo-http:1";
    /** Longest time a set-up command may take. */
    static final long COMMAND_TIMEOUT_SECONDS = 180;
    private static final SecureRandom RANDOM = new SecureRandom();

    private TestDocker() {
    }

    /** @return the engine socket; fails the test clearly if there is none */
    public static Path socket() {
        String host = System.getenv("DOCKER_HOST");
        Path p;
        if (host != null && !host.isBlank()) {
            if (!host.startsWith("unix://")) {
                return fail("DOCKER_HOST must be unix:///path for the docker module tests, got " + host);
            }
            p = Path.of(host.substring("unix://".length()));
        } else {
            p = Path.of("/var/run/docker.sock");
        }
        if (!Files.exists(p)) {
            return fail("no Docker engine socket at " + p + ": start one with scripts/dockerd and export DOCKER_HOST");
        }
        return p;
    }

    /** @return a name {@code dogama-test-<random>} */
    public static String randomName() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return "dogama-test-" + HexFormat.of().formatHex(b);
    }

    /** @return the folder holding {@code scripts/}, found by walking up from the working directory */
    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            if (Files.isRegularFile(p.resolve("scripts/demo-image"))) {
                return p;
            }
            p = p.getParent();
        }
        return fail("cannot find the repository root (a folder with scripts/demo-image) above the working directory");
    }

    /** @return the docker CLI matching the Debian engine */
    static String dockerCli() {
        return Files.isExecutable(Path.of("/usr/bin/docker")) ? "/usr/bin/docker" : "docker";
    }

    /**
     * Runs a command with DOCKER_HOST pointing at the test engine.
     *
     * @return its standard output, trimmed; fails the test if it exits non-zero
     */
    public static String run(String... command) {
        Result r = tryRun(command);
        if (r.exit() != 0) {
            return fail("command " + String.join(" ", command) + " exited " + r.exit() + ": " + r.err());
        }
        return r.out();
    }

    /**
     * Result of a set-up command.
     *
     * @param exit exit status
     * @param out  standard output, trimmed
     * @param err  standard error, trimmed
     */
    public record Result(int exit, String out, String err) {
    }

    /** Runs a command; returns whatever it did. */
    public static Result tryRun(String... command) {
        try {
            Path err = Files.createTempFile("dogama-test", ".err");
            Path out = Files.createTempFile("dogama-test", ".out");
            try {
                ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
                pb.environment().put("DOCKER_HOST", "unix://" + socket());
                Process p = pb.start();
                if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return fail("command " + String.join(" ", command) + " did not finish in "
                            + COMMAND_TIMEOUT_SECONDS + " s");
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8).strip(),
                        Files.readString(err, StandardCharsets.UTF_8).strip());
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            return fail("cannot run " + String.join(" ", command) + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted running " + String.join(" ", command));
        }
    }

    /** Runs the docker CLI (set-up only). */
    public static String cli(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(dockerCli());
        cmd.addAll(List.of(args));
        return run(cmd.toArray(String[]::new));
    }

    /** Builds/loads the demo image with {@code scripts/demo-image} and returns its image ID. */
    public static String demoImageId() {
        String id = run(repoRoot().resolve("scripts/demo-image").toString());
        if (!id.matches("^sha256:[a-f0-9]{64}$")) {
            return fail("scripts/demo-image printed no image ID: " + id);
        }
        return id;
    }
}
