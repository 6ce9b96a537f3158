package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** scripts/dogama-curl against the vectors and against a running agent. */
class DogamaCurlTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    static Path script() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("scripts/dogama-curl");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("scripts/dogama-curl not found above " + here);
    }

    private Path secretFile(String content) throws IOException {
        Path file = dir.resolve("secret-" + System.nanoTime());
        Files.writeString(file, content, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static Run run(Map<String, String> env, String... args) throws Exception {
        return runWithInput(env, "", args);
    }

    private static Run runWithInput(Map<String, String> env, String input, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", script().toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("DOGAMA_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("dogama-curl did not finish in 30 s");
        }
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void reproducesEveryVector() throws Exception {
        Path secret = secretFile(Signing.SECRET_LINE + "\n");
        for (Map<String, Object> v : Signing.VECTORS) {
            Map<String, String> env = Map.of("DOGAMA_SECRET_FILE", secret.toString(),
                    "DOGAMA_CURL_TIMESTAMP", (String) v.get("timestamp"), "DOGAMA_CURL_NONCE", (String) v.get("nonce"),
                    "DOGAMA_CURL_PRINT_ONLY", "1");
            String body = (String) v.get("body");
            Run r = body.isEmpty() ? run(env, (String) v.get("method"), (String) v.get("path"))
                    : run(env, (String) v.get("method"), (String) v.get("path"), body);
            assertEquals(0, r.exit(), r.err());
            assertEquals(v.get("authorization") + "\n", r.out(), "vector " + v.get("path"));
        }
    }

    @Test
    void paddedSecretLineSignsTheSame() throws Exception {
        byte[] key = java.util.Base64.getUrlDecoder().decode(Signing.SECRET_LINE);
        Path secret = secretFile(java.util.Base64.getUrlEncoder().encodeToString(key) + "\n");
        Map<String, Object> v = Signing.VECTORS.getFirst();
        Run r = run(Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_CURL_TIMESTAMP", (String) v.get("timestamp"),
                "DOGAMA_CURL_NONCE", (String) v.get("nonce"), "DOGAMA_CURL_PRINT_ONLY", "1"), "GET", "/v1/health");
        assertEquals(v.get("authorization") + "\n", r.out(), r.err());
    }

    private ServerFixture liveServer() throws Exception {
        // The script signs with the wall clock at second precision; the nonce memory began a moment earlier.
        Clock clock = Clock.systemUTC();
        return ServerFixture.start(dir, clock, NonceStore.inMemory(100, Clock.offset(clock, Duration.ofSeconds(-2))),
                Signing.SECRET_LINE, ServerFixture.limits());
    }

    @Test
    void healthAgainstARunningAgentIs200() throws Exception {
        try (ServerFixture f = liveServer()) {
            Path secret = secretFile(Signing.SECRET_LINE + "\n");
            Run r = run(Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_URL", "http://127.0.0.1:" + f.port),
                    "GET", "/v1/health");
            assertEquals(0, r.exit(), r.err());
            assertEquals("{\"status\":\"ok\"}\n", r.out());
            assertEquals(List.of("health"), f.ops.calls);
        }
    }

    @Test
    void bodyIsSignedAndSentAsJson() throws Exception {
        try (ServerFixture f = liveServer()) {
            Path secret = secretFile(Signing.SECRET_LINE + "\n");
            Map<String, String> env = Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_URL",
                    "http://127.0.0.1:" + f.port);
            Run created = run(env, "POST", "/v1/instances", "{\"instanceId\":\"mc-0001\",\"note\":\"café\"}");
            assertEquals(0, created.exit(), created.err());
            assertTrue(created.out().contains("\"instanceId\":\"mc-0001\""), created.out());
            Run stopped = run(env, "POST", "/v1/instances/mc-0001/stop", "{\"timeoutSeconds\":7}");
            assertEquals(0, stopped.exit(), stopped.err());
            assertEquals(List.of("create", "stop mc-0001 7"), f.ops.calls);
        }
    }

    /**
     * Any local user can read a process's arguments and environment (/proc/PID/cmdline, ps): the key, in any form,
     * the signed headers and the body (a plan's env values, given as "-") reach the tools the script runs on stdin
     * or a descriptor only. openssl's HMAC took the key
     * as an argument; curl took the body as one, read ~/.curlrc, and sent through whatever proxy http_proxy named.
     * Every tool the script runs is replaced by a wrapper that writes down its arguments and environment.
     */
    @Test
    void neitherTheKeyNorTheBodyIsEverAnArgumentAndNoProxySeesTheRequest() throws Exception {
        Path shims = Files.createDirectory(dir.resolve("shims"));
        Path seen = dir.resolve("seen");
        for (String tool : List.of("openssl", "curl", "od", "tr", "sed", "date")) {
            Process which = new ProcessBuilder("bash", "-c", "command -v " + tool).start();
            String real = new String(which.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(0, which.waitFor(), tool);
            Path shim = shims.resolve(tool);
            Files.writeString(shim, "#!/bin/bash\n{ printf '%s ' \"$0\" \"$@\"; env; } >> '" + seen + "'\nexec '" + real
                    + "' \"$@\"\n");
            Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwx------"));
        }
        byte[] key = java.util.Base64.getUrlDecoder().decode(Signing.SECRET_LINE);
        String body = "{\"instanceId\":\"mc-0001\",\"env\":{\"GREETING\":\"kept-off-argv\"}}";
        try (ServerFixture f = liveServer()) {
            Path secret = secretFile(Signing.SECRET_LINE + "\n");
            // "-": the body from standard input, so that not even the script's own arguments hold it
            Run r = runWithInput(Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_URL",
                    "http://127.0.0.1:" + f.port, "PATH", shims + ":" + System.getenv("PATH"), "http_proxy",
                    "http://127.0.0.1:1", "HOME", dir.toString()), body, "POST", "/v1/instances", "-");
            assertEquals(0, r.exit(), r.err());
            assertEquals(List.of("create"), f.ops.calls, "sent to the agent, past the proxy setting");
        }
        String log = Files.readString(seen);
        assertTrue(log.contains("curl -q ") && log.contains(" --noproxy * "), log);
        String hex = java.util.HexFormat.of().formatHex(key);
        for (String form : List.of(hex, hex.toUpperCase(java.util.Locale.ROOT), Signing.SECRET_LINE,
                java.util.Base64.getEncoder().encodeToString(key))) {
            for (int i = 0; i + 16 <= form.length(); i++) {
                assertTrue(!log.contains(form.substring(i, i + 16)), "the key reached a tool's arguments: " + form);
            }
        }
        assertTrue(!log.contains("kept-off-argv"), "the body reached a tool's arguments");
        // A signed request's headers there would let a local user send it first and read its answer.
        assertTrue(!log.contains("DoGaMa-HMAC-SHA256") && !log.contains("X-DoGaMa-Nonce:"),
                "the signed headers reached a tool's arguments: " + log);
    }

    @Test
    void errorStatusExitsNonZeroAndStillPrintsTheProblem() throws Exception {
        try (ServerFixture f = liveServer()) {
            Path secret = secretFile(Signing.SECRET_LINE + "\n");
            Map<String, String> env = Map.of("DOGAMA_SECRET_FILE", secret.toString(), "DOGAMA_URL",
                    "http://127.0.0.1:" + f.port);
            Run missing = run(env, "GET", "/v1/instances/nope-0001");
            assertEquals(1, missing.exit());
            assertTrue(missing.out().contains("\"code\":\"unknown_instance\""), missing.out());
            Run wrongSecret = run(Map.of("DOGAMA_SECRET_FILE", secretFile(Signing.OTHER_LINE).toString(), "DOGAMA_URL",
                    "http://127.0.0.1:" + f.port), "GET", "/v1/health");
            assertEquals(1, wrongSecret.exit());
            assertTrue(wrongSecret.out().contains("\"code\":\"unauthenticated\""), wrongSecret.out());
            Run nonCanonical = run(env, "GET", "/v1/./health");
            assertEquals(1, nonCanonical.exit());
            assertTrue(nonCanonical.out().contains("\"code\":\"not_found\""), nonCanonical.out());
        }
    }

    @Test
    void usageErrorsExit2() throws Exception {
        Path secret = secretFile(Signing.SECRET_LINE);
        assertEquals(2, run(Map.of("DOGAMA_SECRET_FILE", secret.toString()), "GET").exit());
        assertEquals(2, run(Map.of("DOGAMA_SECRET_FILE", secret.toString()), "get", "/v1/health").exit());
        assertEquals(2, run(Map.of("DOGAMA_SECRET_FILE", secret.toString()), "GET", "v1/health").exit());
        assertEquals(2, run(Map.of(), "GET", "/v1/health").exit());
        assertEquals(2, run(Map.of("DOGAMA_SECRET_FILE", secretFile("AAAA").toString()), "GET", "/v1/health").exit());
    }
}
