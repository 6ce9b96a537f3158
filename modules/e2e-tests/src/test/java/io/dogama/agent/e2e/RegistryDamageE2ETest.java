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
 * others work. The file truncated: the agent refuses to start (exit 78) and leaves the file for the
 * operator; restored, it starts as before.
 */
class RegistryDamageE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static final String MAP_FILE = "registry.dat";

    /** Changes one byte of the plan in every stored copy of the instance's record (ISO-8859-1 keeps bytes). */
    private static int tamper(Path map, String instanceId) throws Exception {
        byte[] bytes = Files.readAllBytes(map);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        String marker = "\"instanceId\":\"" + instanceId + "\"";
        int changed = 0;
        for (int at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
            int greeting = text.indexOf("\"GREETING\":\"hello\"", at - 4096 < 0 ? 0 : at - 4096);
            if (greeting >= 0 && Math.abs(greeting - at) < 4096) {
                int o = greeting + "\"GREETING\":\"hell".length();
                bytes[o] = (byte) 'O';
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
        assertTrue(tamper(e2e.dataDir().resolve(MAP_FILE), victim.id()) > 0, "the record was not found to tamper");
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
        e2e.stopAgent();
        Path map = e2e.dataDir().resolve(MAP_FILE);
        Path copy = e2e.base().resolve("registry.copy");
        Files.copy(map, copy, StandardCopyOption.COPY_ATTRIBUTES);
        byte[] whole = Files.readAllBytes(map);
        Files.write(map, java.util.Arrays.copyOf(whole, whole.length / 2));

        AssertionError refused = assertThrows(AssertionError.class, () -> e2e.launchWith(RepoLayout.agentLauncher()));
        assertTrue(refused.getMessage().contains("exit 78"), refused.getMessage());
        assertTrue(refused.getMessage().contains(MAP_FILE), "the refusal names the file: " + refused.getMessage());
        assertEquals(whole.length / 2, Files.size(map), "the damaged file is left for the operator");

        Files.copy(copy, map, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        e2e.launchWith(RepoLayout.agentLauncher());
        assertEquals("CREATED", e2e.wire().get(p.path()).json().get("state"));
        assertEquals(204, e2e.wire().delete(p.path()).status());
    }
}
