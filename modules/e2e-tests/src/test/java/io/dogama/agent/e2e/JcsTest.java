package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tests' own plan digest against /work/shared/test-vectors/plan-digest-v1.json (SPEC section 6). */
class JcsTest {
    @Test
    void theSharedPlanVectorCanonicalizesAndDigestsAsPublished() {
        Map<String, Object> doc = Json.parse(RepoLayout.sharedVector("plan-digest-v1.json"));
        Map<String, Object> plan = Json.object(doc.get("plan"));
        assertEquals(doc.get("canonical"), Jcs.canonical(plan));
        assertEquals(doc.get("planDigest"), Jcs.planDigest(plan));
    }

    @Test
    void controlCharactersUseLowerCaseUnicodeEscapes() {
        assertEquals("\"a\\u001fb\\u0000\"", Jcs.canonical("a\u001fb\u0000"));
    }
}
