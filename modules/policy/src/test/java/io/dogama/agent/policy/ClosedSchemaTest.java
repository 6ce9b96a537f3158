package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.json;
import static io.dogama.agent.policy.Fixture.map;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The closed-schema reading of untrusted JSON shared by the config, the templates and plans: nesting depth, which keys
 * a message may echo, keys that are not well-formed text, and the problems of a missing or mistyped array.
 */
class ClosedSchemaTest {
    @TempDir
    Path tmp;
    Fixture f;

    @BeforeEach
    void setUp() throws IOException {
        f = new Fixture(tmp);
    }

    @AfterEach
    void tearDown() throws IOException {
        f.close();
    }

    /** The config with {@code "<key>": <value>} (both raw JSON text) added as its first member. */
    private String configWith(String key, String value) {
        return "{" + key + ":" + value + "," + new String(json(f.configMap()), StandardCharsets.UTF_8).substring(1);
    }

    private static String refusal(String config) {
        PolicyException e = assertThrows(PolicyException.class,
                () -> AdminConfig.parse(config.getBytes(StandardCharsets.UTF_8)));
        return e.getMessage();
    }

    /** The config is read 8 levels deep (the top object is level 1), in arrays as in objects; level 9 is refused. */
    @Test
    void nestingIsReadToExactlyTheDepthLimit() {
        // "x" sits at level 2: seven nested arrays or objects reach level 8.
        assertEquals("policy: config: x: unknown_field", refusal(configWith("\"x\"", "[".repeat(7) + "]".repeat(7))));
        assertEquals("policy: config: not valid JSON", refusal(configWith("\"x\"", "[".repeat(8) + "]".repeat(8))));
        assertEquals("policy: config: x: unknown_field",
                refusal(configWith("\"x\"", "{\"a\":".repeat(6) + "{}" + "}".repeat(6))));
        assertEquals("policy: config: not valid JSON",
                refusal(configWith("\"x\"", "{\"a\":".repeat(7) + "{}" + "}".repeat(7))));
    }

    /**
     * A key holding an unpaired surrogate is not text: refused, whether the parser stops at it or reads on and
     * reports it at its parent's path.
     */
    @Test
    void aKeyThatIsNotWellFormedTextIsRefused() {
        for (String key : List.of("\\ud800", "\\udc00", "x\\ud800y")) {
            String e = refusal(configWith("\"" + key + "\"", "1"));
            assertTrue(e.equals("policy: config: not valid JSON") || e.contains("$: invalid_string"), e);
        }
    }

    /**
     * A message echoes a key only when it is plain, {@code [A-Za-z0-9_./-]{1,64}}: anything else (quotes, spaces,
     * control characters, very long keys) would let a sender write into logs and answers; the parent's path stands
     * in for it.
     */
    @Test
    void onlyPlainKeysOfAtMost64CharactersAreEchoed() {
        assertEquals("policy: config: azAZ09_.-/: unknown_field", refusal(configWith("\"azAZ09_.-/\"", "1")));
        String longest = "k".repeat(64);
        assertEquals("policy: config: " + longest + ": unknown_field", refusal(configWith("\"" + longest + "\"", "1")));
        for (String key : List.of("k".repeat(65), "", "a b", "a\\\"b", "a\\nb", "`", "{", "@", "[", ":")) {
            assertEquals("policy: config: $: unknown_field", refusal(configWith("\"" + key + "\"", "1")), key);
        }
    }

    private List<Violation> planViolations(Map<String, Object> plan) {
        return Fixture.rejected(PlanParser.parse(json(plan)));
    }

    /** A plan's array is reported once for what is wrong with it: missing, mistyped or too long. */
    @Test
    void aPlanArrayIsMissingMistypedOrTooLongAndNothingElse() {
        Map<String, Object> plan = f.demoPlan();
        plan.remove("mounts");
        List<Violation> v = planViolations(plan);
        assertTrue(v.contains(new Violation("mounts", "missing_field")), v::toString);
        assertFalse(v.contains(new Violation("mounts", "wrong_type")), v::toString);
        plan.put("mounts", map());
        assertTrue(planViolations(plan).contains(new Violation("mounts", "wrong_type")));
        List<Object> mounts = new ArrayList<>();
        for (int i = 0; i < PlanParser.MAX_MOUNTS; i++) {
            mounts.add(map("source", f.data.resolve("m" + i).toString(), "target", "/m" + i, "readOnly", true));
        }
        plan.put("mounts", mounts);
        assertFalse(rejectedOrNone(plan).contains(new Violation("mounts", "too_large")));
        mounts.add(map("source", f.data.toString(), "target", "/data", "readOnly", false));
        assertTrue(planViolations(plan).contains(new Violation("mounts", "too_large")));
    }

    /** Violations of a plan that may be well-formed: none when it parses. */
    private static List<Violation> rejectedOrNone(Map<String, Object> plan) {
        return PlanParser.parse(json(plan)) instanceof io.dogama.agent.core.Outcome.Failed<?> failed
                ? failed.violations() : List.of();
    }
}
