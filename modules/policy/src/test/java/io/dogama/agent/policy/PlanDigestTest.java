package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.ok;
import static io.dogama.agent.policy.Fixture.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.dogama.agent.core.Plan;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The plan digest vector of SPEC section 6 and the RFC 8785 details it relies on. */
class PlanDigestTest {

    /** The vector file's plan as raw (non-canonical, pretty-printed) text, its canonical form and digest. */
    private record Vector(String planText, String canonical, String digest) {
    }

    private static Vector vector() throws IOException {
        String text;
        try (InputStream in = PlanDigestTest.class.getResourceAsStream("plan-digest-v1.json")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String planText = null;
        String canonical = null;
        String digest = null;
        try (JsonParser p = new JsonFactory().createParser(text)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (name.equals("plan")) {
                    int start = (int) p.currentTokenLocation().getCharOffset();
                    p.skipChildren();
                    int end = (int) p.currentTokenLocation().getCharOffset() + 1;
                    planText = text.substring(start, end);
                } else if (t == JsonToken.VALUE_STRING && name.equals("canonical")) {
                    canonical = p.getText();
                } else if (t == JsonToken.VALUE_STRING && name.equals("planDigest")) {
                    digest = p.getText();
                } else {
                    p.skipChildren();
                }
            }
        }
        return new Vector(planText, canonical, digest);
    }

    @Test
    void reproducesTheSharedVector() throws IOException {
        Vector v = vector();
        assertTrue(v.planText().contains("\n"), "the plan is read in its original, non-canonical layout");
        Plan plan = ok(PlanParser.parse(utf8(v.planText())));
        assertEquals(v.canonical(), new String(PlanDigest.canonicalJson(plan), StandardCharsets.UTF_8));
        assertEquals(v.digest(), PlanDigest.of(plan));
        assertEquals("sha256:5e813887cc0d1af9dbc9012b608e04c9561b972b62377ea1c08c9ea79ae41e6c", PlanDigest.of(plan));
    }

    @Test
    void aSuppliedDigestIsExcludedFromTheDigest() throws IOException {
        Vector v = vector();
        String withDigest = v.planText().replaceFirst("\\{", "{\"planDigest\":\"" + v.digest() + "\",");
        Plan plan = ok(PlanParser.parse(utf8(withDigest)));
        assertEquals(Optional.of(v.digest()), plan.planDigest());
        assertEquals(v.digest(), PlanDigest.of(plan));
    }

    @Test
    void canonicalBytesRoundTripToTheSamePlan() throws IOException {
        Plan plan = ok(PlanParser.parse(utf8(vector().planText())));
        byte[] canonical = PlanDigest.canonicalJson(plan);
        Plan again = ok(PlanParser.parse(canonical));
        assertEquals(plan, again);
        assertArrayEquals(canonical, PlanDigest.canonicalJson(again));
    }

    @Test
    void membersAreSortedByUtf16CodeUnitsNotCodePoints() throws IOException {
        // RFC 8785 section 3.2.3's example: U+20AC sorts after U+1F600's surrogates (0xD83D) by code
        // point, but before them by UTF-16 code unit; "\r" sorts first, "1" next, then U+00F6.
        Plan plan = ok(PlanParser.parse(utf8(vector().planText())));
        Plan withKeys = new Plan(plan.instanceId(), plan.templateId(), plan.templateVersion(), plan.image(),
                Optional.empty(), Optional.empty(), plan.capAdd(),
                Map.of("\u20ac", "Euro Sign", "\r", "Carriage Return", "\ufb33", "Hebrew Letter Dalet With Dagesh",
                        "1", "One", "\ud83d\ude00", "Emoji: Grinning Face", "\u0080", "Control", "\u00f6",
                        "Latin Small Letter O With Diaeresis"),
                plan.mounts(), plan.ports(), plan.resources(), Optional.empty(), Map.of(), plan.networks(),
                Optional.empty());
        String canonical = new String(PlanDigest.canonicalJson(withKeys), StandardCharsets.UTF_8);
        String env = canonical.substring(canonical.indexOf("\"env\":"), canonical.indexOf("},\"image\"") + 1);
        assertEquals("\"env\":{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\","
                + "\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\","
                + "\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}", env);
    }

    @Test
    void stringsEscapeOnlyQuoteBackslashAndControlsInLowerCaseHex() throws IOException {
        Plan plan = ok(PlanParser.parse(utf8(vector().planText())));
        Plan odd = new Plan(plan.instanceId(), plan.templateId(), plan.templateVersion(), plan.image(),
                Optional.empty(), Optional.empty(), plan.capAdd(),
                Map.of("K", "\u0000\u0001\u001f\b\f\n\r\t\"\\/\u007f\u2028<>&'"),
                plan.mounts(), plan.ports(), plan.resources(), Optional.empty(), Map.of(), plan.networks(),
                Optional.empty());
        String canonical = new String(PlanDigest.canonicalJson(odd), StandardCharsets.UTF_8);
        assertTrue(canonical.contains("\"K\":\"\\u0000\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/\u007f\u2028<>&'\""),
                canonical);
        assertEquals(odd.env(), ok(PlanParser.parse(PlanDigest.canonicalJson(odd))).env());
    }

    /** A command or entrypoint the plan gives is part of what the digest covers, an empty one too. */
    @Test
    void aGivenCommandAndEntrypointAreDigested() throws IOException {
        Plan plan = ok(PlanParser.parse(utf8(vector().planText())));
        java.util.Set<String> digests = new java.util.HashSet<>();
        for (Optional<java.util.List<String>> c : java.util.List.of(Optional.<java.util.List<String>>empty(),
                Optional.of(java.util.List.<String>of()), Optional.of(java.util.List.of("/bin/sh")))) {
            Plan withCommand = new Plan(plan.instanceId(), plan.templateId(), plan.templateVersion(), plan.image(),
                    c, Optional.empty(), plan.capAdd(), plan.env(), plan.mounts(), plan.ports(), plan.resources(),
                    plan.user(), plan.labels(), plan.networks(), Optional.empty());
            Plan withEntrypoint = new Plan(plan.instanceId(), plan.templateId(), plan.templateVersion(), plan.image(),
                    Optional.empty(), c, plan.capAdd(), plan.env(), plan.mounts(), plan.ports(), plan.resources(),
                    plan.user(), plan.labels(), plan.networks(), Optional.empty());
            assertEquals(withCommand, ok(PlanParser.parse(PlanDigest.canonicalJson(withCommand))));
            assertEquals(withEntrypoint, ok(PlanParser.parse(PlanDigest.canonicalJson(withEntrypoint))));
            digests.add(PlanDigest.of(withCommand));
            digests.add(PlanDigest.of(withEntrypoint));
        }
        assertEquals(5, digests.size(), "omitted (once for both), empty and given differ, and command from entrypoint");
    }

    @Test
    void omittedOptionalFieldsAreAbsentNotNull() throws IOException {
        Plan plan = ok(PlanParser.parse(utf8(vector().planText())));
        Plan bare = new Plan(plan.instanceId(), plan.templateId(), plan.templateVersion(), plan.image(),
                Optional.empty(), Optional.empty(), plan.capAdd(), plan.env(), plan.mounts(), plan.ports(),
                plan.resources(), Optional.empty(), plan.labels(), plan.networks(), Optional.of("sha256:x"));
        String canonical = new String(PlanDigest.canonicalJson(bare), StandardCharsets.UTF_8);
        for (String absent : new String[] {"\"command\"", "\"entrypoint\"", "\"user\"", "\"planDigest\"", "null"}) {
            assertTrue(!canonical.contains(absent), absent + " in " + canonical);
        }
        assertNotEquals(PlanDigest.of(plan), PlanDigest.of(bare));
    }
}
