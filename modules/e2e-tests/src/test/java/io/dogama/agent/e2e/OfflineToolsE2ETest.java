package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The offline tools of the runtime image's launcher ({@code validate}, {@code digest}, {@code catalog})
 * against the running agent's own answers: a refused plan prints exactly the problem the API answers.
 */
class OfflineToolsE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

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
        Path out = Files.createTempFile("dogama-tool-", ".out");
        Path err = Files.createTempFile("dogama-tool-", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the tool hangs");
            return new Run(p.exitValue(), Files.readString(out).strip(), Files.readString(err).strip());
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static Path file(String name, String content) throws IOException {
        Path f = e2e.base().resolve(name);
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void validatePassesAPlanTheAgentAcceptsAndPrintsItsDigest() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("offline-ok"));
        Run r = tool("validate", "--config", e2e.config().toString(), file("ok.json", plan.json()).toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals("valid " + plan.digest(), r.out());
        assertTrue(r.err().contains("not checked offline"), r::toString);
        Wire.Response created = e2e.wire().post("/v1/instances", plan.json());
        assertEquals(201, created.status(), created::toString);
        assertEquals(plan.digest(), created.json().get("planDigest"));
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
    }

    @Test
    void validatePrintsExactlyTheProblemTheApiAnswers() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("offline-bad"));
        plan.mount(0).put("source", e2e.outside().toString());
        plan.map("env").put("GREETING", "<script>");
        plan.map("labels").put("io.dogama.managed", "false");
        Plans.Plan unknownField = e2e.plan(e2e.instanceId("offline-unk")).with("privileged", true);
        for (Plans.Plan p : List.of(plan, unknownField)) {
            Run r = tool("validate", "--config", e2e.config().toString(), file(p.id() + ".json", p.json()).toString());
            Wire.Response api = Checks.unchanged(e2e, () -> e2e.wire().post("/v1/instances", p.json()));
            assertEquals(422, api.status(), api::toString);
            assertEquals(1, r.exit(), r::toString);
            assertEquals(api.body().strip(), r.out(), "the same bytes as the API's plan_rejected");
        }
    }

    @Test
    void validateAndDigestReportUsageErrorsWithExitTwo() throws Exception {
        assertEquals(2, tool("validate").exit());
        assertEquals(2, tool("validate", "--config", e2e.config().toString()).exit());
        assertEquals(2, tool("validate", "--config", e2e.config().toString(), e2e.base().resolve("none.json").toString()).exit());
        assertEquals(2, tool("validate", "--config", e2e.base().resolve("none.json").toString(),
                file("any.json", "{}").toString()).exit());
        assertEquals(2, tool("digest").exit());
        assertEquals(2, tool("digest", e2e.base().resolve("none.json").toString()).exit());
    }

    /**
     * A file the tools are named that is no regular file: {@code /dev/zero} has no size to check and no end (the digest
     * ran out of heap, exit 3), and a FIFO blocks the read until a writer comes (the tool hung).
     */
    @Test
    void filesThatAreNoRegularFilesAreRefusedAtOnce() throws Exception {
        Run zero = tool("digest", "/dev/zero");
        assertEquals(2, zero.exit(), zero::toString);
        assertTrue(zero.err().contains("cannot read the plan file"), zero::toString);
        Path fifo = e2e.base().resolve("plan.fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Run plan = tool("validate", "--config", e2e.config().toString(), fifo.toString());
        assertEquals(2, plan.exit(), plan::toString);
        Run config = tool("validate", "--config", fifo.toString(), file("any.json", "{}").toString());
        assertEquals(2, config.exit(), config::toString);
        assertTrue(config.err().contains("cannot read config file"), config::toString);
    }

    @Test
    void digestReproducesTheSharedVectorAndTheAgent() throws Exception {
        Map<String, Object> vector = Json.parse(RepoLayout.sharedVector("plan-digest-v1.json"));
        Run r = tool("digest", file("vector.json", Json.write(vector.get("plan"))).toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals(vector.get("planDigest"), r.out());
        Plans.Plan plan = e2e.plan(e2e.instanceId("offline-digest"));
        assertEquals(plan.digest(), tool("digest", file("d.json", plan.json()).toString()).out());
        Run bad = tool("digest", file("bad.json", "{\"instanceId\":1}").toString());
        assertEquals(1, bad.exit(), bad::toString);
        assertTrue(bad.out().contains("\"code\":\"plan_rejected\""), bad::toString);
    }

    @Test
    void catalogListsTheEmbeddedTemplatesWithTheirPinnedImages() throws Exception {
        Run r = tool("catalog");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.equals("demo-http 1.0.0 dogama/demo-http:1 imageId="
                + e2e.pinnedImageId() + " manifestDigest=-")), r::toString);
    }
}
