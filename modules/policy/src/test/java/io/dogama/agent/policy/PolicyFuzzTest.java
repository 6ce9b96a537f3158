package io.dogama.agent.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.policy.internal.CatalogLock;
import io.dogama.agent.policy.internal.TemplateReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz targets of the policy module (docs/fuzzing.md). Without {@code JAZZER_FUZZ=1}
 * each target runs once per committed input under {@code PolicyFuzzTestInputs/<method>/} (regression
 * mode, part of the normal test run); {@code scripts/fuzz} runs them in fuzzing mode.
 *
 * <p>The inputs are plan, template, lock and config bytes in which {@code $ROOT}, {@code $DATA},
 * {@code $OUT} and {@code $LINK} stand for real folders of a host layout in a temporary folder (the
 * allowed root, an instance's data folder, a folder outside every root, a symlink inside the root
 * that points outside), so that committed inputs stay valid whatever the temporary folder is called
 * and the fuzzer reaches the path rules with real paths.
 */
class PolicyFuzzTest {
    @TempDir
    static Path tmp;
    static Fixture fixture;
    static PlanPolicy policy;
    static ValidationContext context;
    static Path root;

    @BeforeAll
    static void layout() throws Exception {
        fixture = new Fixture(tmp);
        root = fixture.instances.toRealPath();
        Files.createSymbolicLink(fixture.instances.resolve("demo-0001/escape"), fixture.outside);
        Path other = Files.createDirectories(fixture.instances.resolve("other-0001/data"));
        policy = fixture.policy();
        context = new ValidationContext(Set.of(new HostPort("0.0.0.0", 20081, Protocol.TCP)),
                Map.of("other-0001", List.of(new HostPort("0.0.0.0", 20082, Protocol.TCP))),
                Map.of("other-0001", List.of(other.toString())));
    }

    @AfterAll
    static void close() throws IOException {
        fixture.close();
    }

    /**
     * Plan parsing, validation, digest and spec building on arbitrary bytes: the answer is a value
     * or a typed refusal (never {@code internal_error}, never an exception), the same bytes give the
     * same answer, the digest is the digest of the canonical form and survives a round trip, and an
     * approved plan names only resolved paths strictly below the allowed root.
     */
    @FuzzTest(maxDuration = "5m")
    void plan(byte[] data) {
        byte[] json = substitute(data);
        String first = describe(policy.validate(json, context));
        assertEquals(first, describe(policy.validate(json, context)), "the same bytes gave two answers");
        if (policy.validate(json, context) instanceof Outcome.Ok<ValidatedPlan> ok) {
            ValidatedPlan v = ok.value();
            assertEquals(PlanDigest.of(v.plan()), v.planDigest());
            assertArrayEquals(PlanDigest.canonicalJson(v.plan()), v.canonicalJson());
            // The canonical form parses back to the same plan: nothing is lost or reordered.
            Outcome<Plan> again = PlanParser.parse(v.canonicalJson());
            assertTrue(again instanceof Outcome.Ok<Plan>, "canonical form does not parse: " + again);
            assertEquals(v.planDigest(), PlanDigest.of(((Outcome.Ok<Plan>) again).value()));
            v.mounts().forEach(m -> assertBelowRoot(m.source()));
            Template t = v.template();
            ImageFacts image = new ImageFacts(t.imageId().orElse(Fixture.DEMO_IMAGE_ID), List.of(), "65534:65534", List.of());
            if (policy.approve(v, image) instanceof Outcome.Ok<ApprovedPlan> approved) {
                ContainerSpec spec = approved.value().spec();
                spec.mounts().forEach(m -> assertBelowRoot(m.source()));
                assertEquals(v.planDigest(), approved.value().planDigest());
            }
        }
    }

    /**
     * The catalog's template reader, the lock file parser and the administrator-config reader: each
     * returns a value or throws {@link PolicyException}, and does the same for the same bytes.
     */
    @FuzzTest(maxDuration = "5m")
    void readers(byte[] data) {
        if (data.length == 0) {
            return;
        }
        byte[] rest = substitute(java.util.Arrays.copyOfRange(data, 1, data.length));
        String first = read(data[0], rest);
        assertEquals(first, read(data[0], rest), "the same bytes gave two answers");
    }

    private static String read(byte selector, byte[] bytes) {
        try {
            return switch (Math.floorMod(selector, 3)) {
                case 0 -> TemplateReader.read(bytes, "demo-http/1.0.0.json").toString();
                case 1 -> CatalogLock.parse(new String(bytes, StandardCharsets.UTF_8)).toString();
                default -> {
                    AdminConfig c = AdminConfig.parse(bytes);
                    c.allowedRoots().values().forEach(p -> assertTrue(p.isAbsolute(), "relative root " + p));
                    yield c.toString();
                }
            };
        } catch (PolicyException e) {
            assertTrue(e.getMessage().startsWith("policy: catalog: ") || e.getMessage().startsWith("policy: config: "),
                    "message without its module prefix: " + e.getMessage());
            return "refused: " + e.getMessage();
        }
    }

    private static void assertBelowRoot(String source) {
        Path p = Path.of(source);
        assertTrue(p.isAbsolute() && p.normalize().equals(p), "not a clean absolute path: " + source);
        assertTrue(p.startsWith(root), "outside the allowed root: " + source);
        assertNotEquals(root, p, "the allowed root itself: " + source);
        try {
            assertEquals(p, p.toRealPath(), "not the resolved path: " + source);
        } catch (IOException e) {
            throw new AssertionError("an approved source does not exist: " + source, e);
        }
    }

    private static String describe(Outcome<ValidatedPlan> o) {
        return switch (o) {
            case Outcome.Ok<ValidatedPlan> ok -> "ok " + ok.value().planDigest() + " "
                    + HexFormat.of().formatHex(ok.value().canonicalJson()) + " " + ok.value().mounts() + " "
                    + ok.value().bindings();
            case Outcome.Failed<ValidatedPlan> f -> {
                assertNotEquals(ProblemCode.INTERNAL_ERROR, f.code(), "internal_error for a plan");
                assertTrue(f.code().status() < 500, "a 5xx for a plan: " + f.code());
                yield "failed " + f.code() + " " + f.violations();
            }
        };
    }

    /** Replaces the placeholders with the layout's real paths (see the class comment). */
    static byte[] substitute(byte[] data) {
        String s = new String(data, StandardCharsets.UTF_8);
        if (s.indexOf('$') < 0) {
            return data;
        }
        // $DATADIR before $DATA, which is its prefix.
        return s.replace("$DATADIR", fixture.dataDir.toString()).replace("$ROOT", fixture.instances.toString())
                .replace("$DATA", fixture.data.toString())
                .replace("$OUT", fixture.outside.toString())
                .replace("$LINK", fixture.instances.resolve("demo-0001/escape").toString())
                .replace("$SOCK", fixture.socket.toString()).replace("$SECRET", fixture.secret.toString())
                .getBytes(StandardCharsets.UTF_8);
    }
}
