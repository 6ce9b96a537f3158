package io.dogama.agent.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a host command with a bound on its duration; output goes to files, so no pipe can fill up. */
final class Proc {
    private Proc() {
    }

    record Result(List<String> command, int exit, String stdout, String stderr) {
        /** The tail of stderr, for a failure message. */
        String stderrTail() {
            return stderr.length() <= 4000 ? stderr : "..." + stderr.substring(stderr.length() - 4000);
        }

        Result requireSuccess() {
            if (exit != 0) {
                throw new AssertionError(String.join(" ", command) + " exited with " + exit + ":\n" + stderrTail());
            }
            return this;
        }
    }

    static Result run(List<String> command, Map<String, String> env, Path dir, Duration timeout) {
        try {
            Path out = Files.createTempFile("dogama-proc", ".out");
            Path err = Files.createTempFile("dogama-proc", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                                Path.of("/dev/null").toFile()));
                // A null value removes the variable from the inherited environment.
                env.forEach((k, v) -> {
                    if (v == null) {
                        pb.environment().remove(k);
                    } else {
                        pb.environment().put(k, v);
                    }
                });
                Process p = pb.start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish within " + timeout + ":\n"
                            + Files.readString(err, StandardCharsets.UTF_8));
                }
                return new Result(command, p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command, e);
        }
    }
}
