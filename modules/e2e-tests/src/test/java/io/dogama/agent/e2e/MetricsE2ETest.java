package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /v1/metrics} on the real agent: signed like every route, read by a real consumer
 * ({@code promtool check metrics}, Debian package {@code prometheus}), with the series an operator
 * alerts on; and the same text written to {@code metricsFile}.
 */
class MetricsE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static final Duration PROMTOOL_TIMEOUT = Duration.ofSeconds(60);

    /** @return promtool's exit status and output on {@code text} */
    private static String promtool(String text, int[] exit) throws Exception {
        Path in = Files.createTempFile("dogama-metrics-", ".prom");
        // promtool's output goes to a file: draining a pipe to its end would wait for a hung promtool
        // without a bound, and the timeout would never apply.
        Path log = Files.createTempFile("dogama-promtool-", ".log");
        try {
            Files.writeString(in, text, StandardCharsets.UTF_8);
            ProcessBuilder pb = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true)
                    .redirectInput(in.toFile()).redirectOutput(log.toFile());
            Process p = pb.start();
            if (!p.waitFor(PROMTOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("promtool hangs: " + String.join(" ", pb.command()) + " did not finish in "
                        + PROMTOOL_TIMEOUT.toSeconds() + " s:\n"
                        + new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
            }
            exit[0] = p.exitValue();
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(log);
        }
    }

    private static double value(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertTrue(m.find(), () -> "no series " + series + " in\n" + text);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void promtoolAcceptsTheAgentsMetricsAndTheyCountWhatHappened() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("metrics"));
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
        assertEquals(401, e2e.wire().exchange("GET", "/v1/health", null, Map.of()).status());

        Wire.Response r = e2e.wire().get("/v1/metrics");
        assertEquals(200, r.status(), r::toString);
        assertEquals("text/plain; version=0.0.4", r.contentType());
        int[] exit = new int[1];
        String verdict = promtool(r.body(), exit);
        assertEquals(0, exit[0], () -> "promtool check metrics:\n" + verdict + "\non:\n" + r.body());

        String text = e2e.client().metrics();
        assertTrue(value(text, "dogama_http_requests_total{route=\"GET /v1/health\",status=\"200\"}") >= 1);
        assertTrue(value(text, "dogama_http_requests_total{route=\"GET /v1/health\",status=\"401\"}") >= 1);
        assertTrue(value(text, "dogama_auth_refusals_total{reason=\"unauthenticated\"}") >= 1);
        assertEquals(1, value(text, "dogama_lifecycle_operations_total{operation=\"create\",outcome=\"ok\"}"));
        assertEquals(1, value(text,
                "dogama_lifecycle_operation_duration_seconds_count{operation=\"delete\",outcome=\"ok\"}"));
        assertTrue(value(text, "dogama_docker_calls_total{operation=\"POST /containers/create\",outcome=\"ok\"}") >= 1);
        assertTrue(value(text, "dogama_docker_call_duration_seconds_count{operation=\"GET /_ping\"}") >= 1);
        assertEquals(1, value(text, "dogama_engine_available"));
        assertEquals(0, value(text, "dogama_registry_records"));
        assertEquals(50, value(text, "dogama_registry_capacity"));
        assertTrue(value(text, "dogama_nonce_memory_entries") >= 3);
        assertEquals(0, value(text, "dogama_nonce_memory_full_total"));
        assertEquals(0, value(text, "dogama_nonce_memory_stalled_total"));
        assertEquals(1, value(text, "dogama_audit_writable"));
        assertEquals(0, value(text, "dogama_audit_errors_total"));
        assertTrue(value(text, "dogama_audit_last_sequence") >= 4);
        assertTrue(value(text, "jvm_memory_heap_used_bytes") > 0);
        assertTrue(value(text, "jvm_threads_live") > 0);
        assertTrue(value(text, "dogama_process_open_fds") > 0);
        // node_exporter's textfile collector (the metrics file) drops a family its own process and Go collectors
        // already name, with an error at every scrape.
        assertFalse(Pattern.compile("(?m)^(# (HELP|TYPE) )?(process|go)_").matcher(text).find(), text);
        // Nothing about a container: no ID, name or image reference in any label.
        assertFalse(text.contains("dogama-" + plan.id()), text);
        assertFalse(Pattern.compile("[0-9a-f]{64}").matcher(text).find(), text);
    }

    @Test
    void unsignedMetricsAreRefusedLikeAnyRoute() {
        Wire.Response r = e2e.wire().exchange("GET", "/v1/metrics", null, Map.of());
        Checks.assertProblem(r, 401, "unauthenticated");
        Wire.Signed signed = e2e.wire().sign("GET", "/v1/metrics", null);
        assertEquals(200, signed.send().status());
        Checks.assertProblem(signed.send(), 401, "replayed_request");
    }

    @Test
    void metricsFileIsWrittenAtomicallyAndReadable() throws Exception {
        Path folder = Files.createDirectory(e2e.base().resolve("textfile"));
        Path file = folder.resolve("dogama.prom");
        Map<String, Object> config = new LinkedHashMap<>(Json.parse(Files.readString(e2e.config())));
        config.put("metricsFile", file.toString());
        Files.writeString(e2e.config(), Json.write(config), StandardCharsets.UTF_8);
        e2e.restart();
        try {
            // Written once before the agent listens, then every 15 s.
            assertTrue(Files.exists(file), "no metrics file once the agent listens");
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            String text = Files.readString(file);
            int[] exit = new int[1];
            String verdict = promtool(text, exit);
            assertEquals(0, exit[0], () -> "promtool check metrics:\n" + verdict);
            assertEquals(1, value(text, "dogama_engine_available"));
            try (var s = Files.list(folder)) {
                assertEquals(List.of(file), s.toList(), "no temporary file left behind");
            }
        } finally {
            config.remove("metricsFile");
            Files.writeString(e2e.config(), Json.write(config), StandardCharsets.UTF_8);
            e2e.restart();
        }
    }
}
