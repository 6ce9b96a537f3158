package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SPEC section 14 on the real agent: its mutations, refusals and reconciliation land in the audit log
 * without a secret, signature, body, env value or resolved path; the real {@code audit verify}
 * passes on it, and names the exact line after each kind of tampering with a copy of it.
 */
class AuditE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    /** An env value no line may ever show. */
    private static final String GREETING = "audit canary 7f3a9c";

    private record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nout: " + out + "\nerr: " + err;
        }
    }

    private static Run tool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(RepoLayout.agentLauncher().toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("DOGAMA_AGENT_CONFIG");
        Path out = Files.createTempFile("dogama-audit-", ".out");
        Path err = Files.createTempFile("dogama-audit-", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                // Also an agent that started where it should have refused: stopped, never left running.
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                throw new AssertionError(cmd + " did not end in 60 s: " + Files.readString(err));
            }
            return new Run(p.exitValue(), Files.readString(out).strip(), Files.readString(err).strip());
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static Path auditDir() {
        return e2e.dataDir().resolve("audit");
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        }
    }

    private static String all(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Path f : files(dir)) {
            sb.append(Files.readString(f, StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    /** @return a copy of the log, to tamper with */
    private static Path copy(String name) throws IOException {
        Path dir = Files.createDirectory(e2e.base().resolve("tampered-" + name));
        for (Path f : files(auditDir())) {
            Files.copy(f, dir.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        }
        return dir;
    }

    private static Run verifyCopy(Path dir) throws Exception {
        return tool("audit", "verify", "--key", e2e.dataDir().resolve("audit.key").toString(), dir.toString());
    }

    @Test
    void operationsAndRefusalsAreAuditedVerifiedAndTamperingIsNamedLineByLine() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("audited"));
        plan.map("env").put("GREETING", GREETING);
        String path = "/v1/instances/" + plan.id();
        Wire.Signed create = e2e.wire().sign("POST", "/v1/instances", plan.json());
        assertEquals(201, create.send().status());
        assertEquals(200, e2e.wire().post(path + "/start").status());
        assertEquals(200, e2e.wire().post(path + "/stop", "{\"timeoutSeconds\":1}").status());
        assertEquals(200, e2e.wire().post(path + "/restart", "{\"timeoutSeconds\":1}").status());
        // Refusals: a replay (its signature must not be logged), an unsigned request, a plan rejection, a
        // revision conflict, an unknown instance.
        assertEquals(401, create.send().status());
        assertEquals(401, e2e.wire().exchange("POST", path + "/start", null, Map.of()).status());
        Plans.Plan bad = e2e.plan(e2e.instanceId("audit-bad"));
        bad.mount(0).put("source", e2e.outside().toString());
        assertEquals(422, e2e.wire().post("/v1/instances", bad.json()).status());
        assertEquals(409, e2e.wire().put(path, "{\"plan\":" + plan.json() + ",\"expectedRevision\":7}").status());
        assertEquals(404, e2e.wire().post("/v1/instances/" + e2e.instanceId("nobody") + "/start").status());
        assertEquals(204, e2e.wire().delete(path).status());

        // Stopped, so that every queued refusal is on disk; then the real CLI on the real log.
        e2e.stopAgent();
        String log = all(auditDir());
        // A configuration that cannot be read is 74, not BROKEN (1), and the message is the audit command's own.
        Run unreadable = tool("audit", "verify", "--config", e2e.dataDir().resolve("no-such-config.json").toString());
        assertEquals(74, unreadable.exit(), unreadable::toString);
        assertTrue(unreadable.err().startsWith("dogama-agent: audit: cannot read config file"), unreadable::toString);
        Run ok = tool("audit", "verify", "--config", e2e.config().toString());
        assertEquals(0, ok.exit(), ok::toString);
        assertTrue(ok.out().startsWith("audit: intact: "), ok::toString);

        for (String expected : List.of(
                "\"kind\":\"begin\",\"route\":\"POST /v1/instances\",\"outcome\":\"admitted\"",
                "\"kind\":\"end\",\"route\":\"POST /v1/instances\",\"instanceId\":\"" + plan.id() + "\",\"outcome\":\"ok\","
                        + "\"status\":201,\"revisionAfter\":0,\"planDigest\":\"" + plan.digest() + "\"",
                "\"route\":\"POST /v1/instances/{id}/start\",\"instanceId\":\"" + plan.id() + "\",\"outcome\":\"ok\"",
                "\"route\":\"POST /v1/instances/{id}/stop\",\"instanceId\":\"" + plan.id() + "\",\"outcome\":\"ok\"",
                "\"route\":\"POST /v1/instances/{id}/restart\",\"instanceId\":\"" + plan.id() + "\",\"outcome\":\"ok\"",
                "\"kind\":\"refused\",\"route\":\"POST /v1/instances\",\"outcome\":\"replayed_request\",\"status\":401",
                "\"kind\":\"refused\",\"route\":\"POST /v1/instances/{id}/start\",\"instanceId\":\"" + plan.id()
                        + "\",\"outcome\":\"unauthenticated\",\"status\":401",
                // a refused create is recorded against the instance its plan names
                "\"kind\":\"end\",\"route\":\"POST /v1/instances\",\"instanceId\":\"" + bad.id()
                        + "\",\"outcome\":\"plan_rejected\",\"status\":422",
                "\"outcome\":\"revision_conflict\",\"status\":409",
                "\"outcome\":\"unknown_instance\",\"status\":404",
                "\"route\":\"DELETE /v1/instances/{id}\",\"instanceId\":\"" + plan.id() + "\",\"outcome\":\"ok\",\"status\":204",
                "\"peer\":\"127.0.0.1:")) {
            assertTrue(log.contains(expected), () -> "no line with " + expected + " in\n" + log);
        }
        assertTrue(log.contains("\"rules\":[\""), () -> "the plan rejection's rule names\n" + log);
        // Never a secret, signature, body, env value or resolved path.
        String secret = Files.readAllLines(e2e.secretFile()).getFirst().strip();
        String signature = create.headers().get("Authorization").substring("DoGaMa-HMAC-SHA256 ".length());
        for (String forbidden : List.of(secret, signature, create.headers().get("X-DoGaMa-Nonce"), GREETING,
                "GREETING", "\"plan\"", "timeoutSeconds", e2e.outside().toString(), e2e.root().toString(),
                e2e.realRoot().toString(), e2e.dataDir().toString(), e2e.engine().socketPath())) {
            assertFalse(log.contains(forbidden), () -> "the audit log contains '" + forbidden + "'");
        }

        // Tampered copies, one kind each; the verdict names the file, the line and its sequence number.
        Path first = files(auditDir()).getFirst();
        List<String> lines = Files.readAllLines(first, StandardCharsets.UTF_8);
        assertTrue(lines.size() >= 10, "lines: " + lines.size());

        Path changed = copy("changed");
        List<String> c = new ArrayList<>(lines);
        c.set(5, c.get(5).replace("\"outcome\":\"ok\"", "\"outcome\":\"invalid_transition\""));
        assertTrue(!c.get(5).equals(lines.get(5)), "line 6 has an outcome to change: " + lines.get(5));
        Files.write(changed.resolve(first.getFileName()), c);
        Run r = verifyCopy(changed);
        assertEquals(1, r.exit(), r::toString);
        assertEquals("audit: BROKEN at " + changed.resolve(first.getFileName()) + ":6: seq 6: its MAC does not match: "
                + "the line was changed, or inserted in place of the original", r.out());

        Path removed = copy("removed");
        List<String> d = new ArrayList<>(lines);
        d.remove(2);
        Files.write(removed.resolve(first.getFileName()), d);
        r = verifyCopy(removed);
        assertEquals(1, r.exit(), r::toString);
        assertEquals("audit: BROKEN at " + removed.resolve(first.getFileName())
                + ":3: seq 4: expected seq 3: line(s) 3 removed, or lines reordered", r.out());

        Path reordered = copy("reordered");
        List<String> o = new ArrayList<>(lines);
        o.set(5, lines.get(6));
        o.set(6, lines.get(5));
        Files.write(reordered.resolve(first.getFileName()), o);
        r = verifyCopy(reordered);
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.out().startsWith("audit: BROKEN at " + reordered.resolve(first.getFileName()) + ":6: seq 7: "),
                r::toString);

        Path inserted = copy("inserted");
        List<String> i = new ArrayList<>(lines);
        i.add(8, lines.get(1));
        Files.write(inserted.resolve(first.getFileName()), i);
        r = verifyCopy(inserted);
        assertEquals(1, r.exit(), r::toString);
        assertEquals("audit: BROKEN at " + inserted.resolve(first.getFileName()) + ":9: seq 2: expected seq 9: seq 2 "
                + "again or out of order: a line was inserted or lines reordered", r.out());

        Run tail = tool("audit", "tail", "--config", e2e.config().toString(), "3");
        assertEquals(0, tail.exit(), tail::toString);
        assertEquals(3, tail.out().lines().count(), tail::toString);
        assertTrue(log.strip().endsWith(tail.out().lines().toList().getLast()), tail::toString);

        // The chain continues over a restart (the start-up reconciliation writes no line when nothing was interrupted).
        e2e.restart();
        assertEquals(200, e2e.wire().get("/v1/health").status());
        assertEquals(404, e2e.wire().post(path + "/start").status());
        e2e.stopAgent();
        Run again = tool("audit", "verify", "--config", e2e.config().toString());
        assertEquals(0, again.exit(), again::toString);
        e2e.restart();
    }

    /**
     * The real agent and its anchor ({@code audit.head}): the log cut at a line boundary while the agent is stopped
     * still verifies as a chain, but the start refuses it (exit 78) and leaves it as found; put back, it starts.
     */
    @Test
    void aLogCutShortWhileTheAgentIsStoppedRefusesTheStartUntilItIsPutBack() throws Exception {
        e2e.restart();
        Plans.Plan plan = e2e.plan(e2e.instanceId("anchored"));
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
        e2e.stopAgent();
        Path newest = files(auditDir()).getLast();
        byte[] whole = Files.readAllBytes(newest);
        int cut = whole.length - 2;
        while (cut >= 0 && whole[cut] != '\n') {
            cut--;
        }
        assertTrue(cut > 0, "the newest file holds two lines at least");
        byte[] shortened = java.util.Arrays.copyOf(whole, cut + 1);
        Files.write(newest, shortened);
        assertEquals(0, verifyCopy(auditDir()).exit(), "as a chain alone, the cut log holds");

        Run refused = tool("--config", e2e.config().toString());
        assertEquals(78, refused.exit(), refused::toString);
        assertTrue(refused.err().contains("lines were cut off its end") || refused.out().contains(
                "lines were cut off its end"), refused::toString);
        assertArrayEquals(shortened, Files.readAllBytes(newest), "left as found");
        Run named = tool("audit", "verify", "--config", e2e.config().toString());
        assertEquals(1, named.exit(), named::toString);
        assertTrue(named.out().contains("cut off its end"), named::toString);

        Files.write(newest, whole);
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals(200, e2e.wire().get("/v1/health").status());
    }

    /**
     * The registry lost while the agent is stopped (its file and key removed, as a data volume made anew leaves it):
     * the instance's container keeps running on its folder and port. The new agent neither lists nor touches it
     * (SPEC 5), but its start writes a reconcile line naming the instance ({@code unregistered_container}) and warns.
     */
    @Test
    void aContainerNoRecordNamesIsAuditedAtTheStartAndNeverTouched() throws Exception {
        e2e.restart();
        Plans.Plan plan = e2e.plan(e2e.instanceId("unregistered"));
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertEquals(200, e2e.wire().post("/v1/instances/" + plan.id() + "/start").status());
        String name = "dogama-" + plan.id();
        Map<String, Object> before = e2e.engine().inspect(name);
        e2e.stopAgent();
        Files.delete(e2e.dataDir().resolve("registry.dat"));
        Files.delete(e2e.dataDir().resolve("registry.key"));
        try {
            e2e.launchWith(RepoLayout.agentLauncher());
            String told = "\"kind\":\"reconcile\",\"route\":\"startup\",\"instanceId\":\"" + plan.id()
                    + "\",\"outcome\":\"unregistered_container\"";
            assertEquals(1, all(auditDir()).lines().filter(l -> l.contains(told)).count(), all(auditDir()));
            assertTrue(e2e.logText().contains("1 container(s) carry the agent's labels for an instance no registry "
                    + "record names"), e2e.logText());
            Wire.Response list = e2e.wire().get("/v1/instances");
            assertEquals(200, list.status());
            assertFalse(list.body().contains(plan.id()), "never listed: " + list.body());
            assertEquals(404, e2e.wire().get("/v1/instances/" + plan.id()).status());
            Wire.Response metrics = e2e.wire().get("/v1/metrics");
            assertEquals(200, metrics.status());
            assertTrue(metrics.body().contains("dogama_reconcile_actions_total{action=\"unregistered_container\"} 1\n"),
                    metrics.body());
            Map<String, Object> after = e2e.engine().inspect(name);
            assertEquals(before.get("Id"), after.get("Id"), "the same container");
            assertEquals(before.get("State"), after.get("State"), "never stopped, restarted or changed");
            e2e.stopAgent();
            Run verified = tool("audit", "verify", "--config", e2e.config().toString());
            assertEquals(0, verified.exit(), verified::toString);
        } finally {
            e2e.engine().run("rm", "-f", name);
            e2e.ensureRunning();
        }
    }
}
