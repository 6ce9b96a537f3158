package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.assertOnly;
import static io.dogama.agent.policy.Fixture.assertViolation;
import static io.dogama.agent.policy.Fixture.at;
import static io.dogama.agent.policy.Fixture.json;
import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.ok;
import static io.dogama.agent.policy.Fixture.sub;
import static io.dogama.agent.policy.Fixture.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The closed plan schema of SPEC section 6: every kind of schema violation, with its field path. */
class PlanParserTest {
    @TempDir
    Path tmp;
    private Map<String, Object> plan;

    @BeforeEach
    void setUp() throws IOException {
        try (Fixture f = new Fixture(tmp)) {
            plan = f.demoPlan();
        }
    }

    private static Outcome<Plan> parse(Object value) {
        return PlanParser.parse(json(value));
    }

    private static Outcome<Plan> parse(String text) {
        return PlanParser.parse(utf8(text));
    }

    private static void assertMalformed(Outcome<?> o) {
        Outcome.Failed<?> f = assertInstanceOf(Outcome.Failed.class, o);
        assertEquals(ProblemCode.MALFORMED_REQUEST, f.code());
    }

    @Test
    void parsesTheDemoPlan() {
        Plan p = ok(parse(plan));
        assertEquals("demo-0001", p.instanceId());
        assertEquals(Optional.of("65534:65534"), p.user());
        assertEquals(Optional.empty(), p.command());
        assertEquals(8080, p.ports().get(0).containerPort());
        assertEquals(new Plan.Resources(67108864, 500000000, 64), p.resources());
        assertEquals(Map.of("GREETING", "Hello, world!"), p.env());
    }

    @Test
    void unknownFieldsAreRejectedAtEveryLevel() {
        plan.put("privileged", true);
        at(plan, "mounts", 0).put("propagation", "shared");
        sub(plan, "resources").put("cpuShares", 1);
        at(plan, "ports", 0).put("hostIpv6", "::");
        assertOnly(parse(plan), new Violation("privileged", Rules.UNKNOWN_FIELD),
                new Violation("mounts[0].propagation", Rules.UNKNOWN_FIELD),
                new Violation("resources.cpuShares", Rules.UNKNOWN_FIELD),
                new Violation("ports[0].hostIpv6", Rules.UNKNOWN_FIELD));
    }

    @Test
    void anUnknownFieldWithAnOddNameIsReportedWithoutEchoingIt() {
        plan.put("<script>\u0000", 1);
        assertOnly(parse(plan), new Violation("$", Rules.UNKNOWN_FIELD));
    }

    @Test
    void duplicateKeysAreReportedWithTheirPath() {
        String body = new String(json(plan), StandardCharsets.UTF_8);
        // A second "image" at the top, and a second "readOnly" inside the first mount.
        String dup = body.replaceFirst("\\{", "{\"image\":\"evil/image:1\",")
                .replace("\"readOnly\":false", "\"readOnly\":false,\"readOnly\":true");
        assertOnly(parse(dup), new Violation("image", Rules.DUPLICATE_KEY),
                new Violation("mounts[0].readOnly", Rules.DUPLICATE_KEY));
    }

    @Test
    void duplicateMapKeysInEnvAndLabelsAreRejected() {
        String body = new String(json(plan), StandardCharsets.UTF_8)
                .replace("\"owner\":\"team-a\"", "\"owner\":\"team-a\",\"owner\":\"team-b\"");
        assertOnly(parse(body), new Violation("labels.owner", Rules.DUPLICATE_KEY));
    }

    @Test
    void wrongTypesAreRejected() {
        plan.put("instanceId", 7);
        plan.put("capAdd", "CHOWN");
        plan.put("env", list("A=B"));
        at(plan, "mounts", 0).put("readOnly", "false");
        at(plan, "ports", 0).put("hostPort", "20080");
        sub(plan, "resources").put("pidsLimit", true);
        plan.put("networks", list(1));
        plan.put("labels", Fixture.map("owner", 5));
        assertOnly(parse(plan), new Violation("instanceId", Rules.WRONG_TYPE),
                new Violation("capAdd", Rules.WRONG_TYPE), new Violation("env", Rules.WRONG_TYPE),
                new Violation("mounts[0].readOnly", Rules.WRONG_TYPE),
                new Violation("ports[0].hostPort", Rules.WRONG_TYPE),
                new Violation("resources.pidsLimit", Rules.WRONG_TYPE), new Violation("networks[0]", Rules.WRONG_TYPE),
                new Violation("labels.owner", Rules.WRONG_TYPE));
    }

    @Test
    void aFractionOrExponentIsNotAnInteger() {
        String body = new String(json(plan), StandardCharsets.UTF_8)
                .replace("\"pidsLimit\":64", "\"pidsLimit\":64.0").replace("\"hostPort\":20080", "\"hostPort\":2e4");
        assertOnly(parse(body), new Violation("resources.pidsLimit", Rules.WRONG_TYPE),
                new Violation("ports[0].hostPort", Rules.WRONG_TYPE));
    }

    @Test
    void integersBeyondTheExactRangeAreOutOfRange() {
        String body = new String(json(plan), StandardCharsets.UTF_8)
                .replace("\"memoryBytes\":67108864", "\"memoryBytes\":9007199254740992")
                .replace("\"pidsLimit\":64", "\"pidsLimit\":-9223372036854775808")
                .replace("\"nanoCpus\":500000000", "\"nanoCpus\":123456789012345678901234567890");
        assertOnly(parse(body), new Violation("resources.memoryBytes", Rules.OUT_OF_RANGE),
                new Violation("resources.pidsLimit", Rules.OUT_OF_RANGE),
                new Violation("resources.nanoCpus", Rules.OUT_OF_RANGE));
    }

    @Test
    void nullIsNeverAValueEvenForOptionalFields() {
        plan.put("user", null);
        plan.put("command", null);
        plan.put("image", null);
        at(plan, "mounts", 0).put("source", null);
        plan.put("env", Fixture.map("GREETING", null));
        assertOnly(parse(plan), new Violation("user", Rules.NULL_VALUE), new Violation("command", Rules.NULL_VALUE),
                new Violation("image", Rules.NULL_VALUE), new Violation("mounts[0].source", Rules.NULL_VALUE),
                new Violation("env.GREETING", Rules.NULL_VALUE));
    }

    @Test
    void requiredFieldsMustBePresent() {
        plan.remove("networks");
        plan.remove("capAdd");
        sub(plan, "resources").remove("pidsLimit");
        at(plan, "ports", 0).remove("hostIp");
        at(plan, "mounts", 0).remove("readOnly");
        assertOnly(parse(plan), new Violation("networks", Rules.MISSING_FIELD),
                new Violation("capAdd", Rules.MISSING_FIELD), new Violation("resources.pidsLimit", Rules.MISSING_FIELD),
                new Violation("ports[0].hostIp", Rules.MISSING_FIELD),
                new Violation("mounts[0].readOnly", Rules.MISSING_FIELD));
    }

    @Test
    void everyResourceLimitIsRequired() {
        sub(plan, "resources").clear();
        assertOnly(parse(plan), new Violation("resources.memoryBytes", Rules.MISSING_FIELD),
                new Violation("resources.nanoCpus", Rules.MISSING_FIELD),
                new Violation("resources.pidsLimit", Rules.MISSING_FIELD));
        plan.remove("resources");
        assertOnly(parse(plan), new Violation("resources", Rules.MISSING_FIELD));
    }

    @Test
    void oversizeValuesAreRejected() {
        at(plan, "mounts", 0).put("source", "/" + "a".repeat(PlanParser.MAX_STRING_LENGTH));
        List<Object> many = list();
        for (int i = 0; i <= PlanParser.MAX_NETWORKS; i++) {
            many.add("n" + i);
        }
        plan.put("networks", many);
        plan.put("instanceId", "x".repeat(1000));
        assertOnly(parse(plan), new Violation("mounts[0].source", Rules.TOO_LARGE),
                new Violation("networks", Rules.TOO_LARGE), new Violation("instanceId", Rules.TOO_LARGE));
    }

    @Test
    void anOversizeBodyIsRejectedBeforeParsing() {
        byte[] big = new byte[PlanParser.MAX_BODY_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        assertOnly(PlanParser.parse(big), new Violation("$", Rules.TOO_LARGE));
    }

    @Test
    void aBodyOfExactlyTheLargestSizeIsParsed() {
        assertEquals(ok(parse(plan)), ok(PlanParser.parse(padded(json(plan)))));
        ReplaceRequest r = ok(PlanParser.parseReplace(padded(json(Fixture.map("plan", plan, "expectedRevision", 1)))));
        assertEquals(1, r.expectedRevision());
    }

    /** @return the body followed by spaces up to {@link PlanParser#MAX_BODY_BYTES} */
    private static byte[] padded(byte[] body) {
        byte[] padded = new byte[PlanParser.MAX_BODY_BYTES];
        java.util.Arrays.fill(padded, (byte) ' ');
        System.arraycopy(body, 0, padded, 0, body.length);
        return padded;
    }

    @Test
    void mountsAndPortsAreRequiredLists() {
        plan.remove("mounts");
        plan.put("ports", "http");
        assertOnly(parse(plan), new Violation("mounts", Rules.MISSING_FIELD), new Violation("ports", Rules.WRONG_TYPE));
    }

    @Test
    void unpairedSurrogatesAreInvalidStrings() {
        String body = new String(json(plan), StandardCharsets.UTF_8).replace("team-a", "team\\ud800a");
        assertOnly(parse(body), new Violation("labels.owner", Rules.INVALID_STRING));
    }

    @Test
    void aNonObjectRootIsAWrongType() {
        assertOnly(parse("[]"), new Violation("$", Rules.WRONG_TYPE));
        assertOnly(parse("null"), new Violation("$", Rules.NULL_VALUE));
    }

    @Test
    void syntaxErrorsTrailingDataBadUtf8AndDeepNestingAreMalformed() {
        String body = new String(json(plan), StandardCharsets.UTF_8);
        assertMalformed(parse(body.substring(0, body.length() - 1)));
        assertMalformed(parse(body + "{}"));
        assertMalformed(parse(body.replace("}", ",}")));
        assertMalformed(parse("{'instanceId':'x'}"));
        assertMalformed(parse("{\"a\":1} // comment"));
        assertMalformed(parse(""));
        assertMalformed(parse("{\"env\":{\"A\":NaN}}"));
        assertMalformed(PlanParser.parse(new byte[] {'{', '"', (byte) 0xC3, '"', ':', '1', '}'}));
        assertMalformed(PlanParser.parse(body.getBytes(StandardCharsets.UTF_16)));
        assertMalformed(parse("{\"x\":" + "[".repeat(PlanParser.MAX_DEPTH + 1) + "]".repeat(PlanParser.MAX_DEPTH + 1)
                + "}"));
    }

    @Test
    void everyViolationIsReportedNotJustTheFirst() {
        plan.put("extra", 1);
        plan.remove("image");
        plan.put("user", 1000);
        List<Violation> v = Fixture.rejected(parse(plan));
        assertEquals(3, v.size(), v::toString);
    }

    @Test
    void parsesAReplaceBodyAndPrefixesPlanViolations() {
        ReplaceRequest r = ok(PlanParser.parseReplace(json(Fixture.map("plan", plan, "expectedRevision", 3))));
        assertEquals(3, r.expectedRevision());
        assertEquals("demo-0001", r.plan().instanceId());

        at(plan, "mounts", 0).put("source", 1);
        assertOnly(PlanParser.parseReplace(json(Fixture.map("plan", plan, "expectedRevision", -1, "force", true))),
                new Violation("plan.mounts[0].source", Rules.WRONG_TYPE),
                new Violation("expectedRevision", Rules.OUT_OF_RANGE), new Violation("force", Rules.UNKNOWN_FIELD));
        assertOnly(PlanParser.parseReplace(json(Fixture.map("expectedRevision", "1"))),
                new Violation("plan", Rules.MISSING_FIELD), new Violation("expectedRevision", Rules.WRONG_TYPE));
        assertMalformed(PlanParser.parseReplace(utf8("{\"plan\":")));
    }

    /** The replace body has the plan body's bounds: its size, an object at its root, a revision from 0. */
    @Test
    void aReplaceBodyIsBoundedAsAPlanIs() {
        byte[] big = new byte[PlanParser.MAX_BODY_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        assertOnly(PlanParser.parseReplace(big), new Violation("$", Rules.TOO_LARGE));
        assertOnly(PlanParser.parseReplace(utf8("[]")), new Violation("$", Rules.WRONG_TYPE));
        assertOnly(PlanParser.parseReplace(utf8("null")), new Violation("$", Rules.NULL_VALUE));
        assertEquals(0, ok(PlanParser.parseReplace(json(Fixture.map("plan", plan, "expectedRevision", 0))))
                .expectedRevision());
        Plan p = ok(parse(plan));
        assertThrows(IllegalArgumentException.class, () -> new ReplaceRequest(p, -1));
        assertEquals(0, new ReplaceRequest(p, 0).expectedRevision());
    }
}
