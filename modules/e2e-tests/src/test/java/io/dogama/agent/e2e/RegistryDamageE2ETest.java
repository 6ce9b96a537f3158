package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, fault campaign: the registry file damaged while the agent is stopped. One record
 * tampered: the agent starts, that instance reports intervention_required on every route, the
 * others work. The file cut short, in the middle of a record or at a record's end: the agent refuses to start
 * (exit 78) and leaves the file for the operator; restored, it starts as before.
 */
class RegistryDamageE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static final String MAP_FILE = "registry.dat";

    /**
     * Changes one byte of the plan in every stored copy of the instance's record (ISO-8859-1 keeps bytes): each
     * copy's {@code "GREETING":"hello"} is the one nearest its {@code "instanceId"} with no other record's
     * {@code "instanceId"} between them. Every copy, the superseded ones the file still holds included.
     */
    private static int tamper(Path map, String instanceId) throws Exception {
        byte[] bytes = Files.readAllBytes(map);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        String anyRecord = "\"instanceId\":\"";
        String greeting = "\"GREETING\":\"hello\"";
        int changed = 0;
        for (int at = text.indexOf(anyRecord); at >= 0; at = text.indexOf(anyRecord, at + 1)) {
            if (!text.startsWith(anyRecord + instanceId + "\"", at)) {
                continue;
            }
            int before = text.lastIndexOf(greeting, at);
            int after = text.indexOf(greeting, at);
            boolean beforeOk = before >= 0 && text.indexOf(anyRecord, before) == at;
            boolean afterOk = after >= 0 && text.lastIndexOf(anyRecord, after) == at;
            int g = beforeOk && (!afterOk || at - before <= after - at) ? before : afterOk ? after : -1;
            if (g >= 0) {
                bytes[g + "\"GREETING\":\"hell".length()] = (byte) 'O';
                changed++;
            }
        }
        Files.write(map, bytes);
        return changed;
    }

    @Test
    void aTamperedRecordIsInterventionRequiredAndTheOthersWork() throws Exception {
        Plans.Plan victim = e2e.running("victim");
        Plans.Plan other = e2e.running("other");
        e2e.stopAgent();
        // Two copies at least: the record is created, then started.
        assertTrue(tamper(e2e.dataDir().resolve(MAP_FILE), victim.id()) >= 2, "the record's copies were not found");
        e2e.launchWith(RepoLayout.agentLauncher());

        assertProblem(e2e.wire().get(victim.path()), 409, "intervention_required");
        assertProblem(e2e.wire().post(victim.path() + "/stop", "{\"timeoutSeconds\":0}"), 409,
                "intervention_required");
        assertProblem(e2e.wire().post("/v1/instances", victim.json()), 409, "intervention_required");
        assertEquals("running", e2e.engine().inspect("dogama-" + victim.id()) instanceof java.util.Map<?, ?> m
                ? ((java.util.Map<?, ?>) m.get("State")).get("Status") : null, "its container was not touched");

        assertEquals("RUNNING", e2e.wire().get(other.path()).json().get("state"));
        assertEquals(200, e2e.wire().post(other.path() + "/stop", "{\"timeoutSeconds\":0}").status());
        assertEquals(200, e2e.wire().post(other.path() + "/start").status());
        assertEquals(200, e2e.wire().get("/v1/instances").status());
        assertEquals(204, e2e.wire().delete(other.path()).status());
    }

    @Test
    void aTruncatedRegistryRefusesTheStartAndIsKept() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("kept"));
        assertEquals(201, e2e.wire().post("/v1/instances", p.json()).status());
        Plans.Plan last = e2e.plan(e2e.instanceId("last"));
        assertEquals(201, e2e.wire().post("/v1/instances", last.json()).status());
        e2e.stopAgent();
        Path map = e2e.dataDir().resolve(MAP_FILE);
        Path copy = e2e.base().resolve("registry.copy");
        Files.copy(map, copy, StandardCopyOption.COPY_ATTRIBUTES);
        byte[] whole = Files.readAllBytes(map);
        // In the middle, and right where the last instance's records begin: a cut no record's own check can see.
        String text = new String(whole, StandardCharsets.ISO_8859_1);
        int lastRecords = text.indexOf(last.id() + "#");
        assertTrue(lastRecords > 0, "the last instance's records were not found");
        // Its first record's frame: a 12-byte head, the operation and key length bytes, then the key.
        int frameStart = lastRecords - 14;
        for (int cut : new int[] {whole.length / 2, frameStart}) {
            Files.write(map, java.util.Arrays.copyOf(whole, cut));
            AssertionError refused = assertThrows(AssertionError.class,
                    () -> e2e.launchWith(RepoLayout.agentLauncher()));
            assertTrue(refused.getMessage().contains("exit 78"), refused.getMessage());
            assertTrue(refused.getMessage().contains(MAP_FILE), "the refusal names the file: " + refused.getMessage());
            assertEquals(cut, Files.size(map), "the damaged file is left for the operator");
        }

        Files.copy(copy, map, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals("CREATED", e2e.wire().get(p.path()).json().get("state"));
        assertEquals("CREATED", e2e.wire().get(last.path()).json().get("state"));
        assertEquals(204, e2e.wire().delete(p.path()).status());
        assertEquals(204, e2e.wire().delete(last.path()).status());
    }
}
