package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.assertOnly;
import static io.dogama.agent.policy.Fixture.assertViolation;
import static io.dogama.agent.policy.Fixture.at;
import static io.dogama.agent.policy.Fixture.json;
import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;
import static io.dogama.agent.policy.Fixture.ok;
import static io.dogama.agent.policy.Fixture.rejected;
import static io.dogama.agent.policy.Fixture.sub;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule of SPEC section 8 against real directories, symlinks and a real Unix socket: each test
 * fails if its rule is removed, and the demo plan passes so that each negative test changes one thing.
 */
class PlanPolicyTest {
    private static final HostPort DEMO_BINDING = new HostPort("0.0.0.0", 20080, Protocol.TCP);
    /** No other registered instance. */
    private static final Map<String, List<String>> NO_OTHERS = Map.of();

    @TempDir
    Path tmp;
    Fixture f;
    PlanPolicy policy;
    Map<String, Object> plan;

    @BeforeEach
    void setUp() throws Exception {
        f = new Fixture(tmp);
        policy = f.policy();
        plan = f.demoPlan();
    }

    @AfterEach
    void tearDown() throws IOException {
        f.close();
    }

    Outcome<ValidatedPlan> validate() {
        return validate(ValidationContext.EMPTY);
    }

    Outcome<ValidatedPlan> validate(ValidationContext ctx) {
        return policy.validate(json(plan), ctx);
    }

    Outcome<ApprovedPlan> approve(ImageFacts image) {
        return policy.approve(ok(validate()), image);
    }

    void source(Object s) {
        at(plan, "mounts", 0).put("source", s.toString());
    }

    PlanPolicy policyWith(Map<String, Object> config) throws PolicyException {
        return PlanPolicy.create(AdminConfig.parse(json(config)), Catalog.embedded());
    }

    @Test
    void theDemoPlanIsApprovedIntoTheExpectedContainerSpec() {
        ApprovedPlan a = ok(approve(Fixture.demoImage()));
        ContainerSpec s = a.spec();
        assertEquals("dogama-demo-0001", s.name());
        assertEquals(Fixture.DEMO_IMAGE_ID, s.image(), "Docker runs exactly the checked image ID");
        assertEquals(Optional.of(List.of("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data")), s.command());
        assertEquals(Optional.empty(), s.entrypoint());
        assertEquals(Map.of("GREETING", "Hello, world!"), s.env());
        assertEquals(Optional.of("65534:65534"), s.user());
        assertEquals(Optional.empty(), s.workingDir());
        assertEquals(Map.of("owner", "team-a", Labels.MANAGED, "true", Labels.INSTANCE_ID, "demo-0001",
                Labels.TEMPLATE_ID, "demo-http", Labels.TEMPLATE_VERSION, "1.0.0", Labels.PLAN_DIGEST,
                a.planDigest()), s.labels());
        assertEquals(List.of(), s.capAdd());
        assertEquals(List.of(new ContainerSpec.BindMount(f.data.toString(), "/data", false)), s.mounts());
        assertEquals(List.of(new ContainerSpec.TmpfsMount("/tmp", 16777216)), s.tmpfs());
        assertEquals(List.of(new ContainerSpec.PublishedPort(8080, DEMO_BINDING)), s.ports());
        assertEquals(new ContainerSpec.Limits(67108864, 500000000, 64), s.resources());
        assertEquals(List.of("dogama-games"), s.networks());
        assertTrue(s.readOnlyRootfs());
        assertEquals(ContainerSpec.RestartPolicy.NO, s.restartPolicy());
        assertEquals(Optional.empty(), s.stopSignal());
        assertEquals(PlanDigest.of(a.plan()), a.planDigest());
        assertEquals(List.of(DEMO_BINDING), a.bindings());
        assertEquals("demo-0001", a.instanceId().value());
        assertEquals("demo-http", a.template().id());
        // The registry stores these bytes: they are the canonical plan the digest was computed over.
        assertEquals(a.planDigest(), PlanDigest.of(ok(PlanParser.parse(a.canonicalJson()))));
        assertTrue(java.util.Arrays.equals(PlanDigest.canonicalJson(a.plan()), a.canonicalJson()));
        assertTrue(java.util.Arrays.equals(a.canonicalJson(), ok(validate()).canonicalJson()));
        assertEquals("dogama/demo-http:1", ok(validate()).imageReference());
    }

    @Test
    void theTemplateNamedBeforeValidationIsTheOneValidationPicks() {
        Plan parsed = ((Outcome.Ok<Plan>) PlanParser.parse(json(plan))).value();
        assertEquals(Optional.of(ok(validate()).template()), policy.template(parsed));
        plan.put("templateVersion", "9.9.9");
        assertEquals(Optional.empty(), policy.template(((Outcome.Ok<Plan>) PlanParser.parse(json(plan))).value()));
    }

    @Test
    void aCommandEqualToTheTemplatesIsAccepted() {
        plan.put("command", list("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data"));
        ok(approve(Fixture.demoImage()));
    }

    @Nested
    class Identity {
        @Test
        void idSyntax() {
            plan.put("instanceId", "Demo_0001");
            plan.put("templateId", "-demo");
            plan.put("templateVersion", "1.0.01");
            assertOnly(validate(), new Violation("instanceId", Rules.INVALID_ID),
                    new Violation("templateId", Rules.INVALID_ID),
                    new Violation("templateVersion", Rules.INVALID_VERSION));
        }

        /** A version that is not one is reported as such, and not looked up as an unknown version as well. */
        @Test
        void aVersionWithBadSyntaxIsOnlyInvalid() {
            plan.put("templateVersion", "1.0.01");
            assertOnly(validate(), new Violation("templateVersion", Rules.INVALID_VERSION));
        }

        /** Without a template the rules that need none still apply: every violation is reported, not just the first. */
        @Test
        void withAnUnknownTemplateTheRulesThatNeedNoTemplateStillApply() {
            plan.put("templateId", "minecraft-java");
            source("relative/data");
            sub(plan, "resources").put("pidsLimit", 0);
            assertOnly(validate(), new Violation("templateId", Rules.UNKNOWN_TEMPLATE),
                    new Violation("mounts[0].source", Rules.NOT_ABSOLUTE),
                    new Violation("resources.pidsLimit", Rules.RESOURCE_OUT_OF_BOUNDS));
        }

        @Test
        void theTemplateMustExistInTheCatalog() {
            plan.put("templateId", "minecraft-java");
            assertOnly(validate(), new Violation("templateId", Rules.UNKNOWN_TEMPLATE));
            plan.put("templateId", "demo-http");
            plan.put("templateVersion", "1.0.1");
            assertOnly(validate(), new Violation("templateVersion", Rules.UNKNOWN_TEMPLATE));
        }

        @Test
        void aSuppliedDigestMustBeTheComputedOne() {
            Plan p = ok(PlanParser.parse(json(plan)));
            plan.put("planDigest", PlanDigest.of(p));
            ok(validate());
            plan.put("planDigest", "sha256:" + "0".repeat(64));
            assertOnly(validate(), new Violation("planDigest", Rules.DIGEST_MISMATCH));
        }

        @Test
        void aMatchingDigestIsNeverApproval() {
            plan.put("image", "evil/demo-http:1");
            Plan p = ok(PlanParser.parse(json(plan)));
            plan.put("planDigest", PlanDigest.of(p));
            assertOnly(validate(), new Violation("image", Rules.IMAGE_MISMATCH));
        }
    }

    @Nested
    class PrivilegedFields {
        @Test
        void theImageReferenceMustBeTheTemplates() {
            for (String other : List.of("dogama/demo-http:2", "evil/demo-http:1", "dogama/demo-http",
                    "docker.io/dogama/demo-http:1", "dogama/demo-http@" + Fixture.DEMO_IMAGE_ID)) {
                plan.put("image", other);
                assertOnly(validate(), new Violation("image", Rules.IMAGE_MISMATCH));
            }
        }

        @Test
        void anotherImageUnderTheSameReferenceIsSubstituted() {
            String other = "sha256:" + "1".repeat(64);
            assertOnly(approve(new ImageFacts(other, List.of(), "65534:65534", List.of())),
                    new Violation("image", Rules.IMAGE_SUBSTITUTED));
            assertOnly(approve(new ImageFacts("not-an-id", List.of(), "65534:65534", List.of())),
                    new Violation("image", Rules.IMAGE_SUBSTITUTED));
        }

        @Test
        void aManifestDigestPinNeedsTheSameDigestForTheSameRepository() throws Exception {
            String digest = "sha256:" + "d".repeat(64);
            Map<String, Object> t = TestCatalog.demoTemplate();
            t.remove("imageId");
            t.put("manifestDigest", digest);
            t.put("image", "127.0.0.1:5000/dogama/demo-http:1");
            PlanPolicy p = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            plan.put("image", "127.0.0.1:5000/dogama/demo-http:1");
            ValidatedPlan v = ok(p.validate(json(plan), ValidationContext.EMPTY));
            String anyId = "sha256:" + "2".repeat(64);
            ApprovedPlan a = ok(p.approve(v, new ImageFacts(anyId,
                    List.of("127.0.0.1:5000/dogama/demo-http@" + digest), "65534", List.of())));
            assertEquals(anyId, a.spec().image(), "the spec runs the image ID that carried the digest");
            assertOnly(p.approve(v, new ImageFacts(anyId,
                    List.of("127.0.0.1:5000/dogama/demo-http@sha256:" + "e".repeat(64)), "65534", List.of())),
                    new Violation("image", Rules.IMAGE_SUBSTITUTED));
            assertOnly(p.approve(v, new ImageFacts(anyId, List.of("127.0.0.1:5000/evil/other@" + digest), "65534", List.of())),
                    new Violation("image", Rules.IMAGE_SUBSTITUTED));
            assertOnly(p.approve(v, new ImageFacts(anyId, List.of(), "65534", List.of())),
                    new Violation("image", Rules.IMAGE_SUBSTITUTED));
        }

        @Test
        void commandAndEntrypointOmittedOrExactlyTheTemplates() {
            plan.put("command", list("/bin/sh", "-c", "cat /etc/shadow"));
            plan.put("entrypoint", list("/bin/sh"));
            assertOnly(validate(), new Violation("command", Rules.COMMAND_MISMATCH),
                    new Violation("entrypoint", Rules.ENTRYPOINT_MISMATCH));
            plan.put("command", list("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/"));
            plan.put("entrypoint", list());
            assertOnly(validate(), new Violation("command", Rules.COMMAND_MISMATCH),
                    new Violation("entrypoint", Rules.ENTRYPOINT_MISMATCH));
        }

        @Test
        void capAddMustEqualTheTemplates() {
            plan.put("capAdd", list("SYS_ADMIN"));
            assertOnly(validate(), new Violation("capAdd", Rules.CAP_ADD_MISMATCH));
            plan.put("capAdd", list("CHOWN"));
            assertOnly(validate(), new Violation("capAdd", Rules.CAP_ADD_MISMATCH));
        }

        @Test
        void envKeysMustBeDeclaredAndValuesMatchTheirPattern() {
            plan.put("env", map("GREETING", "$(reboot)", "LD_PRELOAD", "/tmp/x.so", "bad key", "v"));
            assertOnly(validate(), new Violation("env.GREETING", Rules.ENV_PATTERN),
                    new Violation("env.LD_PRELOAD", Rules.UNDECLARED_ENV), new Violation("env", Rules.UNDECLARED_ENV));
            plan.put("env", map("GREETING", "x".repeat(65)));
            assertOnly(validate(), new Violation("env.GREETING", Rules.ENV_PATTERN));
            plan.put("env", map());
            ok(validate());
        }

        /**
         * A NUL can never reach a process's environment (the engine's create body refuses it, so the create failed
         * 500 after its intent was written): refused as a plan's violation, whatever the template's pattern lets
         * through.
         */
        @Test
        void anEnvValueWithANulIsRefusedWhateverThePattern() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            sub(t, "env").put("NOTE", map("pattern", ".{0,64}", "required", false));
            PlanPolicy p = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            sub(plan, "env").put("NOTE", "a\u0000b");
            assertOnly(p.validate(json(plan), ValidationContext.EMPTY), new Violation("env.NOTE", Rules.ENV_PATTERN));
            sub(plan, "env").put("NOTE", "\u0000ab");
            assertOnly(p.validate(json(plan), ValidationContext.EMPTY), new Violation("env.NOTE", Rules.ENV_PATTERN));
            sub(plan, "env").put("NOTE", "a b");
            ok(p.validate(json(plan), ValidationContext.EMPTY));
        }

        @Test
        void aRequiredEnvKeyMustBePresent() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            sub(t, "env").put("TOKEN", map("pattern", "[a-z]{8}", "required", true));
            PlanPolicy p = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            assertOnly(p.validate(json(plan), ValidationContext.EMPTY), new Violation("env.TOKEN", Rules.MISSING_ENV));
            sub(plan, "env").put("TOKEN", "abcdefgh");
            ok(p.validate(json(plan), ValidationContext.EMPTY));
        }
    }

    @Nested
    class Mounts {
        @Test
        void targetsMustBeDeclaredAndEachDeclaredMountPresentOnce() throws IOException {
            Path etc = Files.createDirectories(f.instances.resolve("demo-0001/etc"));
            Fixture.items(plan, "mounts").add(map("source", etc.toString(), "target", "/etc", "readOnly", true));
            assertOnly(validate(), new Violation("mounts[1].target", Rules.UNDECLARED_MOUNT));

            plan = f.demoPlan();
            Fixture.items(plan, "mounts").add(map("source", etc.toString(), "target", "/data", "readOnly",
                    false));
            assertOnly(validate(), new Violation("mounts[1].target", Rules.DUPLICATE_MOUNT));

            plan.put("mounts", list());
            assertOnly(validate(), new Violation("mounts", Rules.MISSING_MOUNT));
        }

        @Test
        void theReadOnlyFlagIsTheTemplates() {
            at(plan, "mounts", 0).put("readOnly", true);
            assertOnly(validate(), new Violation("mounts[0].readOnly", Rules.READ_ONLY_MISMATCH));
        }

        @Test
        void sourcesMustBeAbsolute() {
            source(f.dir.relativize(f.data));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.NOT_ABSOLUTE));
        }

        @Test
        void pathTraversalIsRejectedBeforeAnyResolution() {
            source(f.data + "/../../../../outside");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.DOT_SEGMENT));
            source(f.instances + "/./demo-0001/data");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.DOT_SEGMENT));
            source(f.instances + "/demo-0001/data/..");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.DOT_SEGMENT));
        }

        @Test
        void emptySegmentsAndControlCharactersAreRejected() {
            source(f.instances + "//demo-0001/data");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.EMPTY_SEGMENT));
            source(f.data + "/");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.EMPTY_SEGMENT));
            source(f.data + "\u0000/x");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.INVALID_PATH));
        }

        @Test
        void sourcesMustExist() {
            source(f.instances.resolve("demo-0001/nothing"));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.NOT_FOUND));
        }

        @Test
        void sourcesOutsideTheRootAndTheRootItselfAreRejected() {
            source(f.outside);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            source(f.instances);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void aSiblingWithTheRootAsPrefixIsNotBelowIt() throws IOException {
            Path evil = Files.createDirectories(f.dir.resolve("srv/instances-evil/data"));
            assertTrue(evil.toString().startsWith(f.instances.toString()), "same string prefix");
            source(evil);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void anAbsoluteSymlinkOutOfTheRootIsAnEscape() throws IOException {
            Path link = Files.createSymbolicLink(f.instances.resolve("demo-0001/abs"), f.outside);
            source(link);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            Path fileLink = Files.createSymbolicLink(f.instances.resolve("demo-0001/passwd"), Path.of("/etc/passwd"));
            source(fileLink);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void aRelativeSymlinkOutOfTheRootIsAnEscape() throws IOException {
            Path link = Files.createSymbolicLink(f.instances.resolve("demo-0001/rel"), Path.of("../../../outside"));
            assertEquals(f.outside, link.toRealPath());
            source(link);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void aSymlinkInAMiddleComponentIsAnEscape() throws IOException {
            Files.createDirectories(f.outside.resolve("deep/data"));
            Files.createSymbolicLink(f.instances.resolve("mid"), f.outside.resolve("deep"));
            source(f.instances + "/mid/data");
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void aSymlinkToTheSiblingPrefixRootIsAnEscape() throws IOException {
            Path evil = Files.createDirectories(f.dir.resolve("srv/instances-evil/data"));
            source(Files.createSymbolicLink(f.instances.resolve("demo-0001/sib"), evil));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void aSymlinkStayingInsideTheRootIsResolvedInTheSpec() throws IOException {
            Path link = Files.createSymbolicLink(f.instances.resolve("current"), f.data);
            source(link);
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            assertEquals(f.data.toString(), a.spec().mounts().get(0).source(), "the real path, never the link");
            assertEquals(link.toString(), a.plan().mounts().get(0).source());
        }

        @Test
        void theDockerSocketIsNeverASource() throws IOException {
            // Lexically outside every root: refused as any other outside path, without looking at it.
            for (Path p : List.of(f.socket, f.socketDir, f.dir.resolve("run"))) {
                source(p);
                assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            }
            // Reached through a link inside the root: outside, and nothing more is said of where it leads.
            source(Files.createSymbolicLink(f.instances.resolve("demo-0001/sock"), f.socket));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            // An ancestor of the socket's folder would expose it too.
            source(Files.createSymbolicLink(f.instances.resolve("demo-0001/run"), f.dir.resolve("run")));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void theDataDirectoryIsNeverASource() throws IOException {
            source(Files.createSymbolicLink(f.instances.resolve("demo-0001/agent"), f.dataDir));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        /**
         * A link a container planted in its own folder, below the root, tells nothing of what lies where it points:
         * an existing and a missing name in the agent's data directory, a device and a missing device, are all
         * just outside, for a plan and for check-disk alike. Before, the answer for a target that exists named the
         * rules its real path broke as well ({@code data_dir}, {@code not_regular}), an existence oracle.
         */
        @Test
        void aLinkLeadingOutsideTellsNothingOfWhatItPointsAt() throws IOException {
            Files.writeString(f.dataDir.resolve("present"), "x");
            List<List<Violation>> plans = new ArrayList<>();
            List<List<Violation>> checks = new ArrayList<>();
            int n = 0;
            for (Path target : List.of(f.dataDir.resolve("present"), f.dataDir.resolve("absent"), Path.of("/dev/null"),
                    Path.of("/dev/no-such-device"), f.socket, f.dir.resolve("no-such-socket"))) {
                Path link = Files.createSymbolicLink(f.instances.resolve("demo-0001/probe-" + n++), target);
                source(link);
                plans.add(((Outcome.Failed<?>) validate()).violations());
                checks.add(((Outcome.Failed<?>) policy.checkPaths(List.of(link.toString()))).violations());
            }
            for (int i = 0; i < plans.size(); i++) {
                assertEquals(List.of(new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT)), plans.get(i),
                        "plan, target " + i);
                assertEquals(List.of(new Violation("paths[0]", Rules.OUTSIDE_ALLOWED_ROOT)), checks.get(i),
                        "check-disk, target " + i);
            }
        }

        @Test
        void aSocketOrDeviceBelowTheRootIsNotMountable() throws IOException {
            source(Files.createSymbolicLink(f.instances.resolve("demo-0001/null"), Path.of("/dev/null")));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            Path sock = f.instances.resolve("demo-0001/other.sock");
            try (var ch = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                ch.bind(java.net.UnixDomainSocketAddress.of(sock));
                source(sock);
                assertOnly(validate(), new Violation("mounts[0].source", Rules.NOT_REGULAR));
            }
        }

        @Test
        void aPathLexicallyOutsideEveryRootIsRefusedWithoutLookingAtIt() throws IOException {
            // Whether it exists, is secret, is the socket or would resolve into the root: one answer.
            Path linkIn = Files.createSymbolicLink(f.outside.resolve("into-root"), f.data);
            for (String p : List.of("/etc/shadow", "/etc/nope", f.socket.toString(), f.outside.toString(),
                    f.outside + "/missing", linkIn.toString(), f.dataDir.toString())) {
                source(p);
                assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            }
        }

        @Test
        void aLinkInsideTheRootLeadingOutGetsOneAnswerWhetherItsTargetExistsOrNot() throws IOException {
            Path dir = f.data.getParent();
            for (Path target : List.of(f.outside, f.outside.resolve("missing"), Path.of("/etc/nope-dogama"))) {
                Files.deleteIfExists(dir.resolve("out"));
                source(Files.createSymbolicLink(dir.resolve("out"), target));
                assertOnly(validate(), new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
                assertOnly(policy.checkPaths(List.of(dir.resolve("out").toString())),
                        new Violation("paths[0]", Rules.OUTSIDE_ALLOWED_ROOT));
            }
            // A dangling link that stays inside is simply missing.
            Files.delete(dir.resolve("out"));
            source(Files.createSymbolicLink(dir.resolve("out"), dir.resolve("gone")));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.NOT_FOUND));
        }

        @Test
        void everyAncestorFromTheRootMustBeOwnedByRootOrTheAgentAndWritableByNoOneElse() throws IOException {
            Path instance = f.data.getParent();
            ok(validate());
            setOwner(instance, 1000);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            setOwner(instance, 0);
            for (String mode : List.of("rwxrwxr-x", "rwxr-xrwx", "rwxrwxrwx")) {
                Files.setPosixFilePermissions(instance, perms(mode));
                assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            }
            Files.setPosixFilePermissions(instance, perms("rwxr-xr-x"));
            ok(validate());
            // The root itself counts.
            Files.setPosixFilePermissions(f.instances, perms("rwxrwxrwx"));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            setOwner(f.instances, 1000);
            Files.setPosixFilePermissions(f.instances, perms("rwxr-xr-x"));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void theSourceItselfMayBelongToTheInstancesUser() throws IOException {
            setOwner(f.data, 1000);
            Files.setPosixFilePermissions(f.data, perms("rwxrwxrwx"));
            ok(approve(Fixture.demoImage()));
            // Above the root nothing is checked: the root is the administrator's.
            Files.setPosixFilePermissions(f.instances.getParent(),
                    perms("rwxrwxrwx"));
            ok(approve(Fixture.demoImage()));
        }

        @Test
        void theAncestorsOfTheRealPathAreCheckedNotThoseOfTheLink() throws IOException {
            Path unsafe = Files.createDirectories(f.instances.resolve("shared/demo/data"));
            Files.setPosixFilePermissions(unsafe.getParent().getParent(),
                    perms("rwxrwxrwx"));
            source(Files.createSymbolicLink(f.data.getParent().resolve("link"), unsafe));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void aLinkOnTheWayMustSitInAFolderOnlyRootOrTheAgentCanChange() throws IOException {
            Path elsewhere = Files.createDirectories(f.instances.resolve("demo-0002/data"));
            Path link = Files.createSymbolicLink(f.data.resolve("l"), elsewhere);
            source(link);
            ok(validate());
            // The instance's user can re-point a link in its own source folder, and so move where the
            // stated source leads after it was registered.
            setOwner(f.data, 1000);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            setOwner(f.data, 0);
            Files.setPosixFilePermissions(f.data, perms("rwxrwxrwx"));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            // A link to a link: the second one's folder counts as well.
            Files.setPosixFilePermissions(f.data, perms("rwxr-xr-x"));
            Path shared = Files.createDirectories(f.instances.resolve("shared"));
            Path second = Files.createSymbolicLink(shared.resolve("l2"), elsewhere);
            source(Files.createSymbolicLink(f.instances.resolve("l1"), second));
            ok(validate());
            setOwner(shared, 1000);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void aRealPathWhoseNameIsNotInTheFileNameEncodingIsInvalid() throws Exception {
            // A folder named by the byte 0xff (not UTF-8) and a link to it; Java cannot name it itself.
            String name = "\"$(printf '\\377')\"";
            Process p = new ProcessBuilder("/bin/sh", "-c", "mkdir " + name + " && ln -s " + name + " l")
                    .directory(f.data.toFile()).redirectErrorStream(true).start();
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "mkdir and ln ended");
            assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
            source(f.data.resolve("l"));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.INVALID_PATH));
        }

        @Test
        void aSourceStatedThroughAnotherInstancesSourceOverlapsIt() throws IOException {
            Path elsewhere = Files.createDirectories(f.instances.resolve("demo-0002/data"));
            source(Files.createSymbolicLink(f.data.resolve("l"), elsewhere));
            var ctx = new ValidationContext(Set.of(), Map.of(), Map.of("other-0001", List.of(f.data.toString())));
            assertOnly(validate(ctx), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
        }

        /**
         * Session 38's attack: a container running as the agent's user (or as root, where root is allowed) makes
         * folders that count as safe inside its own source, and a link there. Another plan's source then passes
         * through it, through a second link of its own, without its text or its real path lying inside the first
         * source. Its container re-points the link, that source's claim moves, and the folder still mounted is
         * free for a third plan. The fixture's folders belong to the test's user, who is the agent's here: each
         * folder on the way counts as safe, as a container running as the agent would make it.
         */
        @Test
        void aSourceThatPassesThroughAnotherInstancesSourceByTwoLinksOverlapsIt() throws IOException {
            Path neighbour = Files.createDirectories(f.instances.resolve("z-0001/data"));
            Path victim = Files.createDirectories(f.instances.resolve("w-0001/data"));
            Path l2 = Files.createSymbolicLink(Files.createDirectories(neighbour.resolve("d")).resolve("l2"), victim);
            Path l1 = Files.createSymbolicLink(Files.createDirectories(f.data.resolve("d1")).resolve("l1"), l2);
            source(l1);
            var neighbourRegistered = new ValidationContext(Set.of(), Map.of(),
                    Map.of("z-0001", List.of(neighbour.toString())));
            assertOnly(validate(neighbourRegistered), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
            // No link inside the neighbour's source, only a folder the path enters and leaves by "..": its container
            // can make that folder a link.
            Files.createDirectories(neighbour.resolve("sub"));
            source(Files.createSymbolicLink(f.data.resolve("d1/dotdot"), neighbour.resolve("sub/../../../w-0001/data")));
            assertOnly(validate(neighbourRegistered), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
            // The other way round: a source that takes in a link on a registered source's way.
            source(neighbour);
            var throughIt = new ValidationContext(Set.of(), Map.of(),
                    Map.of("x-0001", List.of(Files.createSymbolicLink(f.instances.resolve("x-0001"), l2).toString())));
            assertOnly(validate(throughIt), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
        }

        /**
         * The same attack with a link named by a byte that is not valid in the file-name encoding: a walk that read
         * names back as strings looked that link up as U+FFFD (another name, or none) and stopped there, while the
         * kernel's way went on into the neighbour's source.
         */
        @Test
        void aLinkNamedOutsideTheFileNameEncodingIsFollowedAsTheKernelFollowsIt() throws Exception {
            Path neighbour = Files.createDirectories(f.instances.resolve("z-0001/data"));
            Path victim = Files.createDirectories(f.instances.resolve("w-0001/data"));
            Files.createSymbolicLink(neighbour.resolve("lk"), victim);
            Path d = Files.createDirectories(f.data.resolve("d"));
            String script = "ln -s \"$(printf '\\377')\" l && ln -s '" + neighbour.resolve("lk") + "' \"$(printf '\\377')\"";
            Process p = new ProcessBuilder("/bin/sh", "-c", script).directory(d.toFile()).redirectErrorStream(true).start();
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "ln ended");
            assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
            source(d.resolve("l"));
            var neighbourRegistered = new ValidationContext(Set.of(), Map.of(),
                    Map.of("z-0001", List.of(neighbour.toString())));
            assertOnly(validate(neighbourRegistered), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
        }

        /**
         * Each registered source is walked again at every validation: a stated path whose links are padded to make
         * thousands of lookups would slow every later one down and fill the heap. Refused before it is registered.
         */
        @Test
        void aPathThatTakesTooManyLookupsIsRefused() throws IOException {
            Path dir = f.data.getParent();
            Files.createDirectories(dir.resolve("x"));
            String pad = "x/../".repeat(700);
            Files.createSymbolicLink(dir.resolve("l2"), Path.of(pad + "data"));
            source(Files.createSymbolicLink(dir.resolve("l1"), Path.of(pad + "l2")));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            source(Files.createSymbolicLink(dir.resolve("l3"), Path.of("x/../".repeat(300) + "data")));
            ok(validate());
        }

        @Test
        void aLinkOnTheWayMayNotSitInsideTheInstancesOwnSource() throws IOException {
            Path elsewhere = Files.createDirectories(f.instances.resolve("w-0001/data"));
            Path link = Files.createSymbolicLink(Files.createDirectories(f.data.resolve("d1")).resolve("l1"), elsewhere);
            var registered = new ValidationContext(Set.of(), Map.of(), Map.of("demo-0001", List.of(f.data.toString())));
            ok(validate(registered));
            // A replace through a link its current container can re-point: once it is, the folder it mounts
            // (still mounted) is claimed by nobody.
            source(link);
            assertOnly(validate(registered), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
            // A link that leads back above itself: the source's own container can re-point it.
            source(Files.createSymbolicLink(Files.createDirectories(f.data.resolve("a/b")).resolve("up"),
                    Path.of("../..")));
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        /**
         * During a replace the current container still runs, and its plan's source goes through a link inside the
         * folder the new plan would mount: the new container could re-point that link, and the current plan's claim
         * would move out from under the folder it still mounts.
         */
        @Test
        void aReplaceMayNotTakeInALinkItsCurrentPlanGoesThrough() throws IOException {
            Path elsewhere = Files.createDirectories(f.instances.resolve("w-0001/data"));
            Path link = Files.createSymbolicLink(Files.createDirectories(f.data.resolve("d")).resolve("l"), elsewhere);
            ok(validate());
            var current = new ValidationContext(Set.of(), Map.of(), Map.of("demo-0001", List.of(link.toString())));
            assertOnly(validate(current), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void aMountMayNotBeStatedThroughALinkInsideAnotherMountOfThePlan() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            sub(t, "mounts").put("/logs", map("root", "instances", "readOnly", false));
            policy = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            Path elsewhere = Files.createDirectories(f.instances.resolve("w-0001/data"));
            Path link = Files.createSymbolicLink(Files.createDirectories(f.data.resolve("d")).resolve("l"), elsewhere);
            Fixture.items(plan, "mounts").add(map("source", elsewhere.toString(), "target", "/logs", "readOnly", false));
            ok(validate());
            at(plan, "mounts", 1).put("source", link.toString());
            assertOnly(validate(), new Violation("mounts[1].source", Rules.SOURCE_OVERLAPS_MOUNT));
            // In either order.
            at(plan, "mounts", 1).put("source", f.data.toString());
            source(link);
            assertOnly(validate(), new Violation("mounts[1].source", Rules.SOURCE_OVERLAPS_MOUNT));
        }

        @Test
        void aLinkOnTheWayUnderAnotherRootMustSitInASafeFolderToo() throws Exception {
            Path backups = Files.createDirectories(f.dir.resolve("srv/backups"));
            Map<String, Object> config = f.configMap();
            config.put("allowedRoots", map("instances", f.instances.toString(), "backups", backups.toString()));
            policy = policyWith(config);
            Path folder = Files.createDirectories(backups.resolve("x-0001/data"));
            source(Files.createSymbolicLink(folder.resolve("l"), f.data));
            ok(validate());
            // The stated path begins below the other root, where the instance's user can re-point the link.
            setOwner(folder, 1000);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void aSourceMayNotOverlapASourceOfAnotherRegisteredInstance() throws IOException {
            Path sub = Files.createDirectories(f.data.resolve("sub"));
            Path sibling = Files.createDirectories(f.instances.resolve("demo-0001/data2"));
            for (Path other : List.of(f.data, f.data.getParent(), sub, f.instances)) {
                var ctx = new ValidationContext(Set.of(), Map.of(), Map.of("other-0001", List.of(other.toString())));
                assertOnly(validate(ctx), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
            }
            // Compared by components, not as strings; and the instance's own sources never count.
            ok(validate(new ValidationContext(Set.of(), Map.of(), Map.of("other-0001", List.of(sibling.toString()),
                    "demo-0001", List.of(f.data.toString())))));
            // Through a link either way: real paths are compared.
            Path alias = Files.createSymbolicLink(f.instances.resolve("alias"), f.data);
            var viaLink = new ValidationContext(Set.of(), Map.of(), Map.of("other-0001", List.of(alias.toString())));
            assertOnly(validate(viaLink), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
            source(alias);
            var direct = new ValidationContext(Set.of(), Map.of(), Map.of("other-0001", List.of(sub.toString())));
            assertOnly(validate(direct), new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
        }

        @Test
        void twoMountsOfOnePlanMayNotOverlap() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            sub(t, "mounts").put("/logs", map("root", "instances", "readOnly", false));
            policy = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            Path logs = Files.createDirectories(f.data.getParent().resolve("logs"));
            Fixture.items(plan, "mounts").add(map("source", logs.toString(), "target", "/logs", "readOnly", false));
            ok(validate());
            for (Path p : List.of(f.data, Files.createDirectories(f.data.resolve("logs")), f.data.getParent())) {
                at(plan, "mounts", 1).put("source", p.toString());
                assertOnly(validate(), new Violation("mounts[1].source", Rules.SOURCE_OVERLAPS_MOUNT));
            }
        }

        @Test
        void theTemplatesRootMustBeConfigured() throws Exception {
            Map<String, Object> config = f.configMap();
            config.put("allowedRoots", map("other", f.instances.toString()));
            policy = policyWith(config);
            assertOnly(validate(), new Violation("mounts[0].source", Rules.ROOT_NOT_CONFIGURED));
        }

        @Test
        void aSymlinkedRootIsComparedByItsRealPath() throws Exception {
            Path alias = Files.createSymbolicLink(f.dir.resolve("alias"), f.dir.resolve("srv"));
            Map<String, Object> config = f.configMap();
            config.put("allowedRoots", map("instances", alias + "/instances"));
            policy = policyWith(config);
            ok(validate());
            source(alias + "/instances/demo-0001/data");
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            assertEquals(f.data.toString(), a.spec().mounts().get(0).source());
        }
    }

    @Nested
    class Revalidation {
        @Test
        void anUnchangedSourcePasses() {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            assertEquals(a.spec().mounts(), ok(policy.revalidateMounts(a.plan(), NO_OTHERS)));
            assertEquals(a.spec().mounts(), ok(policy.revalidateMounts(a.plan(), a.spec().mounts(), NO_OTHERS)));
        }

        /** A registered plan whose template is no longer in the catalog is refused, not resolved against nothing. */
        @Test
        void aPlanWhoseTemplateTheCatalogLacksIsRefused() {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            plan.put("templateId", "minecraft-java");
            Plan unknown = ok(PlanParser.parse(json(plan)));
            assertOnly(policy.revalidateMounts(unknown, NO_OTHERS), new Violation("templateId", Rules.UNKNOWN_TEMPLATE));
            assertOnly(policy.revalidateMounts(unknown, a.spec().mounts(), NO_OTHERS),
                    new Violation("templateId", Rules.UNKNOWN_TEMPLATE));
        }

        @Test
        void aDifferentNumberOfMountsThanTheContainerWasCreatedWithIsAChange() {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            List<ContainerSpec.BindMount> more = new ArrayList<>(a.spec().mounts());
            more.add(new ContainerSpec.BindMount(f.instances.resolve("other-0001").toString(), "/logs", false));
            for (List<ContainerSpec.BindMount> created : List.of(more, List.<ContainerSpec.BindMount>of())) {
                assertOnly(policy.revalidateMounts(a.plan(), created, NO_OTHERS),
                        new Violation("mounts", Rules.MOUNT_CHANGED));
            }
        }

        @Test
        void aVanishedSourceFails() throws IOException {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            Files.delete(f.data);
            assertOnly(policy.revalidateMounts(a.plan(), NO_OTHERS),
                    new Violation("mounts[0].source", Rules.NOT_FOUND));
        }

        @Test
        void aSourceSwappedForAnEscapingSymlinkFails() throws IOException {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            Files.delete(f.data);
            Files.createSymbolicLink(f.data, Path.of("/"));
            assertOnly(policy.revalidateMounts(a.plan(), NO_OTHERS),
                    new Violation("mounts[0].source", Rules.OUTSIDE_ALLOWED_ROOT));
            assertViolation(policy.revalidateMounts(a.plan(), a.spec().mounts(), NO_OTHERS), "mounts[0].source",
                    Rules.OUTSIDE_ALLOWED_ROOT);
        }

        @Test
        void aSourceRedirectedToAnotherInstanceIsAChange() throws IOException {
            Path other = Files.createDirectories(f.instances.resolve("other-0001/data"));
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            Files.delete(f.data);
            Files.createSymbolicLink(f.data, other);
            assertEquals(List.of(new ContainerSpec.BindMount(other.toString(), "/data", false)),
                    ok(policy.revalidateMounts(a.plan(), NO_OTHERS)), "still below the root, so the rule alone passes");
            assertOnly(policy.revalidateMounts(a.plan(), a.spec().mounts(), NO_OTHERS),
                    new Violation("mounts[0].source", Rules.MOUNT_CHANGED));
        }

        @Test
        void anAncestorMadeUnsafeSinceFails() throws IOException {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            Files.setPosixFilePermissions(f.data.getParent(),
                    perms("rwxrwxrwx"));
            assertOnly(policy.revalidateMounts(a.plan(), a.spec().mounts(), NO_OTHERS),
                    new Violation("mounts[0].source", Rules.UNSAFE_ANCESTOR));
        }

        @Test
        void anOverlapWithAnotherRegisteredInstanceFails() {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            assertOnly(policy.revalidateMounts(a.plan(), a.spec().mounts(),
                    Map.of("other-0001", List.of(f.data.getParent().toString()))),
                    new Violation("mounts[0].source", Rules.SOURCE_OVERLAPS_INSTANCE));
            ok(policy.revalidateMounts(a.plan(), a.spec().mounts(), Map.of("demo-0001", List.of(f.data.toString()))));
        }

        @Test
        void aLinkInsertedAboveTheCreatedPathIsAChange() throws IOException {
            ApprovedPlan a = ok(approve(Fixture.demoImage()));
            Path moved = f.dir.resolve("srv/instances/moved");
            Files.move(f.instances.resolve("demo-0001"), moved);
            Files.createSymbolicLink(f.instances.resolve("demo-0001"), moved);
            assertOnly(policy.revalidateMounts(a.plan(), a.spec().mounts(), NO_OTHERS),
                    new Violation("mounts[0].source", Rules.MOUNT_CHANGED));
        }
    }

    @Nested
    class Ports {
        @Test
        void namesMustBeDeclaredOnce() {
            at(plan, "ports", 0).put("name", "admin");
            assertOnly(validate(), new Violation("ports[0].name", Rules.UNDECLARED_PORT));
            plan = f.demoPlan();
            Fixture.items(plan, "ports").add(map("name", "http", "containerPort", 8080, "protocol", "tcp",
                    "hostIp", "127.0.0.1", "hostPort", 20081));
            assertOnly(validate(), new Violation("ports[1].name", Rules.DUPLICATE_PORT));
        }

        @Test
        void containerPortAndProtocolAreTheTemplates() {
            at(plan, "ports", 0).put("containerPort", 22);
            at(plan, "ports", 0).put("protocol", "udp");
            assertOnly(validate(), new Violation("ports[0].containerPort", Rules.CONTAINER_PORT_MISMATCH),
                    new Violation("ports[0].protocol", Rules.PROTOCOL_MISMATCH));
            at(plan, "ports", 0).put("containerPort", 70000);
            at(plan, "ports", 0).put("protocol", "TCP");
            assertOnly(validate(), new Violation("ports[0].containerPort", Rules.PORT_OUT_OF_RANGE),
                    new Violation("ports[0].protocol", Rules.PROTOCOL_MISMATCH));
        }

        @Test
        void containerPortsFromOneTo65535AreInRange() {
            for (long port : new long[] {1, 65535}) {
                at(plan, "ports", 0).put("containerPort", port);
                assertOnly(validate(), new Violation("ports[0].containerPort", Rules.CONTAINER_PORT_MISMATCH));
            }
            for (long port : new long[] {0, 65536, -1}) {
                at(plan, "ports", 0).put("containerPort", port);
                assertOnly(validate(), new Violation("ports[0].containerPort", Rules.PORT_OUT_OF_RANGE));
            }
        }

        @Test
        void hostPortInsideTheAdministratorsRange() {
            for (long port : new long[] {80, 19999, 40001, 0, 65536, -1}) {
                at(plan, "ports", 0).put("hostPort", port);
                assertOnly(validate(), new Violation("ports[0].hostPort", Rules.PORT_OUT_OF_RANGE));
            }
            at(plan, "ports", 0).put("hostPort", 40000);
            ok(validate());
        }

        @Test
        void hostIpMustBeApproved() {
            for (String ip : List.of("10.0.0.1", "::", "0.0.0.0 ", "localhost")) {
                at(plan, "ports", 0).put("hostIp", ip);
                assertOnly(validate(), new Violation("ports[0].hostIp", Rules.HOST_IP_NOT_APPROVED));
            }
            at(plan, "ports", 0).put("hostIp", "127.0.0.1");
            ok(validate());
        }

        @Test
        void aPortOfAnotherRegisteredInstanceConflicts() {
            var ctx = new ValidationContext(Set.of(),
                    Map.of("other-0001", List.of(new HostPort("127.0.0.1", 20080, Protocol.TCP))), Map.of());
            Outcome.Failed<?> failed = assertInstanceOf(Outcome.Failed.class, validate(ctx));
            assertEquals(ProblemCode.PORT_CONFLICT, failed.code(), "only conflicts: 409 port_conflict");
        }

        @Test
        void aPortDockerAlreadyPublishesConflicts() {
            var ctx = new ValidationContext(Set.of(new HostPort("::", 20080, Protocol.TCP)), Map.of(), Map.of());
            assertEquals(ProblemCode.PORT_CONFLICT, ((Outcome.Failed<?>) validate(ctx)).code());
        }

        @Test
        void duringAReplaceTheInstancesOwnBindingsDoNotCount() {
            var ctx = new ValidationContext(Set.of(), Map.of("demo-0001", List.of(DEMO_BINDING)), Map.of());
            ok(validate(ctx));
        }

        @Test
        void otherProtocolsAndAddressesDoNotConflict() {
            var ctx = new ValidationContext(Set.of(new HostPort("0.0.0.0", 20080, Protocol.UDP),
                    new HostPort("0.0.0.0", 20081, Protocol.TCP)),
                    Map.of("other-0001", List.of(new HostPort("0.0.0.0", 20079, Protocol.TCP))), Map.of());
            ok(validate(ctx));
            at(plan, "ports", 0).put("hostIp", "127.0.0.1");
            var specific = new ValidationContext(Set.of(new HostPort("10.1.1.1", 20080, Protocol.TCP)), Map.of(),
                    Map.of());
            ok(validate(specific));
        }

        @Test
        void twoBindingsOfOnePlanConflict() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            sub(t, "ports").put("metrics", map("containerPort", 9090, "protocol", "tcp"));
            policy = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            Fixture.items(plan, "ports").add(map("name", "metrics", "containerPort", 9090, "protocol", "tcp",
                    "hostIp", "127.0.0.1", "hostPort", 20080));
            assertEquals(ProblemCode.PORT_CONFLICT, ((Outcome.Failed<?>) validate()).code());
        }

        @Test
        void aConflictAmongOtherViolationsIsReportedAsAViolation() {
            plan.put("user", "root");
            var ctx = new ValidationContext(Set.of(DEMO_BINDING), Map.of(), Map.of());
            assertOnly(validate(ctx), new Violation("ports[0].hostPort", Rules.PORT_CONFLICT),
                    new Violation("user", Rules.USER_NOT_NUMERIC));
        }
    }

    @Nested
    class Resources {
        @Test
        void limitsInsideTheTemplatesBounds() {
            Map<String, Object> r = sub(plan, "resources");
            r.put("memoryBytes", 16777215);
            r.put("nanoCpus", 1000000001);
            r.put("pidsLimit", 0);
            assertOnly(validate(), new Violation("resources.memoryBytes", Rules.RESOURCE_OUT_OF_BOUNDS),
                    new Violation("resources.nanoCpus", Rules.RESOURCE_OUT_OF_BOUNDS),
                    new Violation("resources.pidsLimit", Rules.RESOURCE_OUT_OF_BOUNDS));
            r.put("memoryBytes", 536870913);
            r.put("nanoCpus", 99999999);
            r.put("pidsLimit", 257);
            assertEquals(3, rejected(validate()).size());
            r.put("memoryBytes", 16777216);
            r.put("nanoCpus", 1000000000);
            r.put("pidsLimit", 32);
            ok(validate());
        }

        @Test
        void limitsUnderTheAdministratorsMaximums() throws Exception {
            Map<String, Object> config = f.configMap();
            config.put("limits", map("memoryBytes", 33554432, "nanoCpus", 200000000, "pidsLimit", 40,
                    "instances", 5));
            policy = policyWith(config);
            assertOnly(validate(), new Violation("resources.memoryBytes", Rules.OVER_ADMIN_LIMIT),
                    new Violation("resources.nanoCpus", Rules.OVER_ADMIN_LIMIT),
                    new Violation("resources.pidsLimit", Rules.OVER_ADMIN_LIMIT));
        }

        @Test
        void limitsEqualToTheAdministratorsMaximumsAreAllowed() throws Exception {
            Map<String, Object> config = f.configMap();
            config.put("limits", map("memoryBytes", 67108864, "nanoCpus", 500000000, "pidsLimit", 64, "instances", 5));
            policy = policyWith(config);
            ok(validate());
        }

        /**
         * A template and a configuration may allow more CPUs than the engine has (the example configuration allows
         * 4); the engine refuses such a quota at the create, after the intent is written: a 500 where the plan is at
         * fault.
         */
        @Test
        void aCpuQuotaAboveTheEnginesCpusIsRefusedBeforeTheCreate() {
            sub(plan, "resources").put("nanoCpus", 1000000000);
            ValidationContext halfACpu = new ValidationContext(Set.of(), Map.of(), Map.of(), 500_000_000);
            assertOnly(validate(halfACpu), new Violation("resources.nanoCpus", Rules.OVER_ENGINE_CPUS));
            ok(validate(new ValidationContext(Set.of(), Map.of(), Map.of(), 1_000_000_000)));
            sub(plan, "resources").put("nanoCpus", 500_000_000);
            ok(validate(halfACpu));
        }
    }

    @Nested
    class LabelsAndUser {
        @Test
        void atMost32Labels() {
            Map<String, Object> labels = map();
            for (int i = 0; i < 33; i++) {
                labels.put("l" + i, "v");
            }
            plan.put("labels", labels);
            assertOnly(validate(), new Violation("labels", Rules.TOO_MANY_LABELS));
            labels.remove("l32");
            ok(validate());
        }

        @Test
        void reservedNamespacesInAnyCaseAreForged() {
            plan.put("labels", map("io.dogama.managed", "false", "dogama.owner", "x", "io.dogama.plan-digest", "x"));
            assertOnly(validate(), new Violation("labels.io.dogama.managed", Rules.RESERVED_LABEL),
                    new Violation("labels.dogama.owner", Rules.RESERVED_LABEL),
                    new Violation("labels.io.dogama.plan-digest", Rules.RESERVED_LABEL));
            plan.put("labels", map("IO.DOGAMA.instance-id", "other-0001", "Dogama.x", "y"));
            assertOnly(validate(), new Violation("labels.IO.DOGAMA.instance-id", Rules.RESERVED_LABEL),
                    new Violation("labels.IO.DOGAMA.instance-id", Rules.LABEL_KEY),
                    new Violation("labels.Dogama.x", Rules.RESERVED_LABEL),
                    new Violation("labels.Dogama.x", Rules.LABEL_KEY));
        }

        @Test
        void keysInTheNamespacesOfOtherHostToolsAreRefusedInAnyCase() {
            List<String> foreign = List.of("com.docker.compose.project", "org.opencontainers.image.source",
                    "org.label-schema.name", "traefik.http.routers.x.rule", "com.centurylinklabs.watchtower.enable",
                    "io.portainer.accesscontrol.public", "autoheal", "autoheal.stop.timeout", "diun.enable",
                    "com.github.containrrr.shoutrrr", "caddy", "caddy_0.reverse_proxy", "caddy.tls",
                    "ofelia.job-exec.x.user", "chadburn.job-exec.x.command", "deck-chores.dump.command",
                    // hooks that run a command in the container as a user they name, past allowRootUser
                    "docker-volume-backup.archive-pre", "docker-volume-backup.archive-pre.user",
                    "backupbot.backup.pre-hook", "nautical-backup.exec.before", "com.ouroboros.enable",
                    "deunhealth.restart.on.unhealthy", "wud.trigger.include", "sablier.enable",
                    "com.github.jrcs.letsencrypt_nginx_proxy_companion.nginx_proxy");
            for (String key : foreign) {
                plan.put("labels", map(key, "true"));
                assertOnly(validate(), new Violation("labels." + key, Rules.FOREIGN_LABEL_NAMESPACE));
            }
            plan.put("labels", map("Traefik.enable", "true", "COM.DOCKER.compose.service", "x"));
            assertOnly(validate(), new Violation("labels.Traefik.enable", Rules.FOREIGN_LABEL_NAMESPACE),
                    new Violation("labels.Traefik.enable", Rules.LABEL_KEY),
                    new Violation("labels.COM.DOCKER.compose.service", Rules.FOREIGN_LABEL_NAMESPACE),
                    new Violation("labels.COM.DOCKER.compose.service", Rules.LABEL_KEY));
            // Only the namespaces themselves: a key that merely shares letters is fine.
            plan.put("labels", map("traefik", "x", "com.dockerhub.team", "y", "diun", "z", "org.example.tier", "w",
                    "ofelia", "v"));
            ok(validate());
        }

        @Test
        void theAdministratorMayNarrowCustomKeysToPrefixes() throws Exception {
            Map<String, Object> config = f.configMap();
            config.put("customLabelPrefixes", list("owner", "team."));
            policy = policyWith(config);
            plan.put("labels", map("owner", "a", "owner-2", "b", "team.x", "c"));
            ok(validate());
            plan.put("labels", map("owner", "a", "team", "b", "billing", "c"));
            assertOnly(validate(), new Violation("labels.team", Rules.LABEL_PREFIX_NOT_ALLOWED),
                    new Violation("labels.billing", Rules.LABEL_PREFIX_NOT_ALLOWED));
            plan.put("labels", map());
            ok(validate());
        }

        @Test
        void labelKeySyntax() {
            plan.put("labels", map("Owner", "a", "-x", "b", "a b", "c", "x.", "d"));
            assertOnly(validate(), new Violation("labels.Owner", Rules.LABEL_KEY),
                    new Violation("labels.-x", Rules.LABEL_KEY), new Violation("labels", Rules.LABEL_KEY),
                    new Violation("labels.x.", Rules.LABEL_KEY));
        }

        @Test
        void labelValuesAreBoundedAndPrintable() {
            plan.put("labels", map("a", "x".repeat(257), "b", "line\nbreak", "c", "bidi\u202eoverride", "d",
                    "\ud83d\ude00".repeat(256), "e", "x".repeat(256)));
            assertOnly(validate(), new Violation("labels.a", Rules.LABEL_VALUE),
                    new Violation("labels.b", Rules.LABEL_VALUE), new Violation("labels.c", Rules.LABEL_VALUE));
        }

        @Test
        void userNamesAreRefused() {
            for (String u : List.of("nobody", "1000", "1000:", ":1000", "-1:0", "01:1", "1000:staff", " 1:1")) {
                plan.put("user", u);
                assertOnly(validate(), new Violation("user", Rules.USER_NOT_NUMERIC));
            }
        }

        @Test
        void userIdsAreBounded() {
            for (String u : List.of("2147483648:1", "1:2147483648", "99999999999999999999:1")) {
                plan.put("user", u);
                assertOnly(validate(), new Violation("user", Rules.USER_OUT_OF_RANGE));
            }
            plan.put("user", "2147483647:2147483647");
            ok(validate());
        }

        @Test
        void uidZeroOnlyWhenTheAdministratorAllowsIt() throws Exception {
            plan.put("user", "0:0");
            assertOnly(validate(), new Violation("user", Rules.ROOT_USER_FORBIDDEN));
            Map<String, Object> config = f.configMap();
            config.put("allowRootUser", true);
            policy = policyWith(config);
            ok(validate());
        }

        @Test
        void gidZeroOnlyWhenTheAdministratorAllowsIt() throws Exception {
            for (String u : List.of("1000:0", "0:1000")) {
                plan.put("user", u);
                assertOnly(validate(), new Violation("user", Rules.ROOT_USER_FORBIDDEN));
            }
            Map<String, Object> config = f.configMap();
            config.put("allowRootUser", true);
            policy = policyWith(config);
            plan.put("user", "1000:0");
            ok(validate());
        }

        @Test
        void theDockerSocketsGroupIsNeverTheUidOrGid() throws Exception {
            int g = Fixture.SOCKET_GID;
            for (String u : List.of("1000:" + g, g + ":1000", g + ":" + g)) {
                plan.put("user", u);
                assertOnly(validate(), new Violation("user", Rules.FORBIDDEN_GROUP));
            }
            // Not even when root is allowed: the engine's group is more than root in a container.
            Map<String, Object> config = f.configMap();
            config.put("allowRootUser", true);
            policy = policyWith(config);
            plan.put("user", "1000:" + g);
            assertOnly(validate(), new Violation("user", Rules.FORBIDDEN_GROUP));
            plan.put("user", "1000:1000");
            ok(validate());
            // The group is read at each validation: an operator's chgrp applies at once.
            Files.setAttribute(f.socket, "unix:gid", 1000);
            assertOnly(validate(), new Violation("user", Rules.FORBIDDEN_GROUP));
        }

        @Test
        void aSocketWhoseGroupCannotBeReadProvesNoGroupSafe() throws IOException {
            Files.delete(f.socket);
            assertOnly(validate(), new Violation("user", Rules.FORBIDDEN_GROUP));
        }

        @Test
        void withoutAUserTheImagesUserMustNotBeRoot() throws Exception {
            plan.remove("user");
            ok(approve(Fixture.demoImage()));
            ok(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "1000:1000", List.of())));
            for (String imageUser : List.of("", "0:0", "00:0", "1000:0", "0:1000")) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), imageUser, List.of())),
                        new Violation("user", Rules.ROOT_USER_FORBIDDEN));
            }
            // A name, or a bare UID's group, is decided by the image's own files: root, or any group.
            for (String imageUser : List.of("root", "0", "00")) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), imageUser, List.of())),
                        new Violation("user", Rules.ROOT_USER_FORBIDDEN), new Violation("user", Rules.FORBIDDEN_GROUP));
            }
            Map<String, Object> config = f.configMap();
            config.put("allowRootUser", true);
            policy = policyWith(config);
            ok(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "", List.of())));
            ok(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "0:0", List.of())));
        }

        @Test
        void anImageVolumeNoMountCoversIsRefusedBeforeTheEngineMakesAnAnonymousVolume() throws Exception {
            // The plan mounts /data; the template gives /tmp a tmpfs.
            for (List<String> covered : List.of(List.of("/data"), List.of("/data/", "/tmp"), List.of("/tmp/"))) {
                ok(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "65534:65534", covered)));
            }
            for (List<String> uncovered : List.of(List.of("/var/lib/x"), List.of("/data", "/data/sub"), List.of("/"))) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "65534:65534", uncovered)),
                        new Violation("image", Rules.IMAGE_VOLUME_UNCOVERED));
            }
        }

        /** The image's numeric USER is bounded as a plan's: 2147483647 is an ID, one more is none the agent knows. */
        @Test
        void theImagesNumericUserIsBoundedAsAPlansUserIs() {
            plan.remove("user");
            ok(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "2147483647:2147483647", List.of())));
            for (String imageUser : List.of("2147483648:1000", "1000:2147483648")) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), imageUser, List.of())),
                        new Violation("user", Rules.ROOT_USER_FORBIDDEN), new Violation("user", Rules.FORBIDDEN_GROUP));
            }
        }

        @Test
        void withoutAUserTheImagesUserMustBeProvablyOutsideTheSocketsGroup() throws Exception {
            plan.remove("user");
            int g = Fixture.SOCKET_GID;
            for (String imageUser : List.of("1000:" + g, g + ":1000")) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), imageUser, List.of())),
                        new Violation("user", Rules.FORBIDDEN_GROUP));
            }
            // A bare UID or a name leaves the group to the image's /etc/passwd: it may be root's or the socket's.
            for (String imageUser : List.of("1000", "nobody", "1000:nogroup")) {
                assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), imageUser, List.of())),
                        new Violation("user", Rules.ROOT_USER_FORBIDDEN), new Violation("user", Rules.FORBIDDEN_GROUP));
            }
            Map<String, Object> config = f.configMap();
            config.put("allowRootUser", true);
            policy = policyWith(config);
            assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "1000", List.of())),
                    new Violation("user", Rules.FORBIDDEN_GROUP));
            assertOnly(approve(new ImageFacts(Fixture.DEMO_IMAGE_ID, List.of(), "1000:" + g, List.of())),
                    new Violation("user", Rules.FORBIDDEN_GROUP));
        }
    }

    @Nested
    class Networks {
        @Test
        void atLeastOneNetwork() {
            plan.put("networks", list());
            assertOnly(validate(), new Violation("networks", Rules.MISSING_NETWORK));
        }

        @Test
        void hostContainerAndUnapprovedNetworksAreRefused() {
            plan.put("networks", list("host", "none", "bridge", "container:dogama-other-0001", "default",
                    "dogama-unapproved", "HOST"));
            assertOnly(validate(), new Violation("networks[0]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[1]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[2]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[3]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[4]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[5]", Rules.NETWORK_NOT_APPROVED),
                    new Violation("networks[6]", Rules.NETWORK_NOT_APPROVED));
        }

        @Test
        void anyApprovedNetworkForDemoHttpEachOnce() {
            plan.put("networks", list("dogama-web", "dogama-games"));
            assertEquals(List.of("dogama-web", "dogama-games"), ok(approve(Fixture.demoImage())).spec().networks());
            plan.put("networks", list("dogama-web", "dogama-web"));
            assertOnly(validate(), new Violation("networks[1]", Rules.DUPLICATE_NETWORK));
        }

        @Test
        void aTemplateMayNarrowTheApprovedNetworks() throws Exception {
            Map<String, Object> t = TestCatalog.demoTemplate();
            t.put("networks", map("names", list("dogama-web")));
            policy = PlanPolicy.create(f.config(), TestCatalog.load(tmp.resolve("cat"), t));
            assertOnly(validate(), new Violation("networks[0]", Rules.NETWORK_NOT_ALLOWED));
            plan.put("networks", list("dogama-web"));
            ok(validate());
        }
    }

    @Nested
    class CheckDisk {
        @Test
        void rootsAndPathsBelowThemPassInOrder() throws IOException {
            Path link = Files.createSymbolicLink(f.instances.resolve("current"), f.data);
            assertEquals(List.of(f.data, f.instances, f.data),
                    ok(policy.checkPaths(List.of(f.data.toString(), f.instances.toString(), link.toString()))));
        }

        @Test
        void aPathLexicallyOutsideEveryRootGetsOneAnswerWhateverItIs() throws IOException {
            Path linkIn = Files.createSymbolicLink(f.outside.resolve("into-root"), f.data);
            List<String> paths = List.of("/etc/shadow", "/etc/nope", f.socket.toString(), linkIn.toString(),
                    f.dataDir.toString());
            assertOnly(policy.checkPaths(paths), new Violation("paths[0]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[1]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[2]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[3]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[4]", Rules.OUTSIDE_ALLOWED_ROOT));
            // Lexically inside, the full check still runs: a missing path is named, a link out is followed, and
            // found outside (nothing more is said of where it leads: aLinkLeadingOutsideTellsNothingOfWhatItPointsAt).
            Path escape = Files.createSymbolicLink(f.instances.resolve("escape"), f.socketDir);
            assertOnly(policy.checkPaths(List.of(f.instances + "/missing", escape.toString())),
                    new Violation("paths[0]", Rules.NOT_FOUND), new Violation("paths[1]", Rules.OUTSIDE_ALLOWED_ROOT));
        }

        @Test
        void oneToSixteenPaths() {
            assertOnly(policy.checkPaths(List.of()), new Violation("paths", Rules.PATH_COUNT));
            List<String> many = java.util.Collections.nCopies(17, f.data.toString());
            assertOnly(policy.checkPaths(many), new Violation("paths", Rules.PATH_COUNT));
            assertEquals(16, ok(policy.checkPaths(many.subList(0, 16))).size());
        }

        @Test
        void everyPathRuleApplies() throws IOException {
            Path evil = Files.createDirectories(f.dir.resolve("srv/instances-evil"));
            Path escape = Files.createSymbolicLink(f.instances.resolve("escape"), Path.of("../../outside"));
            List<String> paths = List.of(f.data.toString(), "srv/instances", f.instances + "/../outside",
                    f.instances + "/missing", f.outside.toString(), evil.toString(), escape.toString(),
                    f.socketDir.toString());
            assertOnly(policy.checkPaths(paths), new Violation("paths[1]", Rules.NOT_ABSOLUTE),
                    new Violation("paths[2]", Rules.DOT_SEGMENT), new Violation("paths[3]", Rules.NOT_FOUND),
                    new Violation("paths[4]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[5]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[6]", Rules.OUTSIDE_ALLOWED_ROOT),
                    new Violation("paths[7]", Rules.OUTSIDE_ALLOWED_ROOT));
        }
    }

    static java.util.Set<java.nio.file.attribute.PosixFilePermission> perms(String s) {
        return java.nio.file.attribute.PosixFilePermissions.fromString(s);
    }

    static void setOwner(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void aPolicyEnforcesTheConfigurationItWasMadeWith() throws PolicyException {
        AdminConfig c = f.config();
        assertSame(c, PlanPolicy.create(c, Catalog.embedded()).config());
    }

    /** The engine's CPUs bound the quota: at least one nano-CPU, or no bound is given at all. */
    @Test
    void anEngineCpuBoundBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ValidationContext(Set.of(), Map.of(), Map.of(), 0));
        assertEquals(1, new ValidationContext(Set.of(), Map.of(), Map.of(), 1).engineNanoCpus());
    }

    /** A validated or approved plan is logged by its name, template and digest: never its env values or paths. */
    @Test
    void aPlanIsLoggedByItsNamesNeverItsValues() {
        ValidatedPlan v = ok(validate());
        ApprovedPlan a = ok(approve(Fixture.demoImage()));
        assertEquals("ValidatedPlan[demo-0001, demo-http@1.0.0, " + v.planDigest() + "]", v.toString());
        assertEquals("ApprovedPlan[demo-0001, demo-http@1.0.0, " + a.planDigest() + "]", a.toString());
    }

    @Test
    void dockerFieldsOutsideTheSchemaCannotBeSmuggledIn() {
        for (String field : List.of("privileged", "devices", "securityOpt", "networkMode", "pidMode", "ipcMode",
                "capDrop", "sysctls", "binds", "volumesFrom", "extraHosts", "runtime", "hostConfig", "Privileged")) {
            plan = f.demoPlan();
            plan.put(field, true);
            assertOnly(validate(), new Violation(field, Rules.UNKNOWN_FIELD));
        }
        plan = f.demoPlan();
        at(plan, "mounts", 0).put("type", "volume");
        assertOnly(validate(), new Violation("mounts[0].type", Rules.UNKNOWN_FIELD));
    }

    @Test
    void everyViolationOfAPlanIsReported() {
        plan.put("image", "evil/x:1");
        plan.put("capAdd", list("SYS_ADMIN"));
        source(f.outside);
        at(plan, "ports", 0).put("hostIp", "10.0.0.1");
        sub(plan, "resources").put("pidsLimit", 100000);
        plan.put("labels", map("io.dogama.managed", "false"));
        plan.put("user", "0:0");
        plan.put("networks", list("host"));
        List<Violation> v = rejected(validate());
        assertEquals(9, v.size(), v::toString);
        assertFalse(v.stream().anyMatch(x -> x.field().contains(f.outside.toString())), "no host path echoed");
    }
}
