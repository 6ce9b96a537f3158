package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;
import static io.dogama.agent.policy.Fixture.sub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.Protocol;
import io.dogama.agent.policy.internal.CatalogLock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Template rules that {@link CatalogTest} tries on another field only: a tmpfs target is held to the same path rules
 * as a mount target, and an argument of the command or entrypoint may not hold a NUL (the engine passes arguments to
 * {@code execve} as C strings, where a NUL ends the argument: the container would run something other than what was
 * reviewed).
 */
class TemplateEdgesTest {
    @TempDir
    Path tmp;

    private void assertRefused(String expected, Consumer<Map<String, Object>> change) throws IOException {
        CatalogTest.assertRefused(tmp, expected, change);
    }

    /** Pins TemplateReader.tmpfs's {@code containerPath(target, ...)}: without it any target is admitted. */
    @Test
    void tmpfsTargetsAreCleanAndNeverKernelPaths() throws IOException {
        for (String target : List.of("/proc", "/sys/fs", "/dev/shm")) {
            assertRefused("tmpfs." + target + ": forbidden_target",
                    t -> t.put("tmpfs", map(target, map("sizeBytes", 1024))));
        }
        assertRefused("tmpfs.tmp: not_absolute", t -> t.put("tmpfs", map("tmp", map("sizeBytes", 1024))));
    }

    /** Pins TemplateReader.nullableArgs's NUL check ({@code invalid_string}), for both keys that read through it. */
    @Test
    void aNulInACommandOrEntrypointArgumentIsRefused() throws IOException {
        assertRefused("command: invalid_string",
                t -> t.put("command", list("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data\u0000/etc")));
        assertRefused("entrypoint: invalid_string", t -> t.put("entrypoint", list("/bin/sh\u0000", "-c")));
    }

    /** The demo template with {@code change} applied is admitted; returns it as loaded. */
    private Template admitted(Consumer<Map<String, Object>> change) throws IOException, PolicyException {
        Map<String, Object> t = TestCatalog.demoTemplate();
        change.accept(t);
        return TestCatalog.load(Files.createTempDirectory(tmp, "ok"), t).templates().get(0);
    }

    /** A catalog of one file with these exact bytes at {@code rel}, listed in the lock with their hash. */
    static Path rawCatalog(Path dir, String rel, byte[] bytes) throws IOException {
        Files.createDirectories(dir.resolve(rel).getParent());
        Files.write(dir.resolve(rel), bytes);
        Files.writeString(dir.resolve(Catalog.LOCK_FILE), CatalogLock.hash(bytes) + "  " + rel + "\n");
        return dir;
    }

    private String refusedRaw(String rel, byte[] bytes) throws IOException {
        Path dir = rawCatalog(Files.createTempDirectory(tmp, "raw"), rel, bytes);
        PolicyException e = assertThrows(PolicyException.class, () -> Catalog.load(dir));
        assertTrue(e.getMessage().startsWith("policy: catalog: " + rel + ": "), e.getMessage());
        return e.getMessage();
    }

    /** A missing required section is reported as missing (and only so), never an internal error. */
    @Test
    void eachMissingSectionIsReportedOnceAsMissing() throws IOException {
        for (String key : List.of("env", "mounts", "ports", "resources", "networks", "restartPolicy", "id",
                "version")) {
            Map<String, Object> t = TestCatalog.demoTemplate();
            t.remove(key);
            String m = refusedRaw("demo-http/1.0.0.json", Fixture.json(t));
            assertTrue(m.contains(key + ": missing_field"), m);
            assertFalse(m.contains(key + ": wrong_type"), m);
        }
        assertRefused("restartPolicy.mode: missing_field", t -> t.put("restartPolicy", map()));
        assertRefused("ports.http.protocol: missing_field", t -> sub(sub(t, "ports"), "http").remove("protocol"));
        assertRefused("env: wrong_type", t -> t.put("env", list()));
        assertTrue(refusedRaw("demo-http/1.0.0.json", Fixture.utf8("[]")).endsWith(": $: wrong_type"));
    }

    /** The ID and version inside the file are checked on their own, not only against the file's place. */
    @Test
    void anInvalidIdOrVersionInsideTheFileIsRefused() throws IOException {
        Map<String, Object> t = TestCatalog.demoTemplate();
        t.put("id", "Demo-Http");
        assertTrue(refusedRaw("demo-http/1.0.0.json", Fixture.json(t)).contains("id: invalid_id"));
        t = TestCatalog.demoTemplate();
        t.put("version", "1.0");
        assertTrue(refusedRaw("demo-http/1.0.0.json", Fixture.json(t)).contains("version: invalid_version"));
    }

    /** A NUL at the very start of an argument ends it as surely as one in the middle. */
    @Test
    void aNulAtTheStartOfAnArgumentIsRefused() throws IOException {
        assertRefused("command: invalid_string", t -> t.put("command", list("\u0000/bin/httpd")));
    }

    /** Container ports span exactly 1..65535. */
    @Test
    void containerPortsSpanExactly1To65535() throws IOException, PolicyException {
        assertRefused("ports.http.containerPort: port_out_of_range",
                t -> sub(sub(t, "ports"), "http").put("containerPort", 65536));
        Template t = admitted(x -> {
            sub(sub(x, "ports"), "http").put("containerPort", 65535);
            sub(x, "ports").put("low", map("containerPort", 1, "protocol", "udp"));
        });
        assertEquals(Map.of("http", new Template.PortRule(65535, Protocol.TCP), "low",
                new Template.PortRule(1, Protocol.UDP)), t.ports());
    }

    /** Each bound may sit exactly on its floor, with min equal to max; a tmpfs may be exactly the largest size. */
    @Test
    void boundsAndSizesAcceptTheirExactLimits() throws IOException, PolicyException {
        Template t = admitted(x -> {
            Map<String, Object> r = sub(x, "resources");
            r.put("memoryBytes", map("min", 6L * 1024 * 1024, "max", 6L * 1024 * 1024));
            r.put("nanoCpus", map("min", 10_000_000, "max", 10_000_000));
            r.put("pidsLimit", map("min", 1, "max", 1));
            sub(x, "tmpfs").put("/tmp", map("sizeBytes", 256L * 1024 * 1024));
        });
        assertEquals(new Template.ResourceBounds(new Template.Bounds(6L << 20, 6L << 20),
                new Template.Bounds(10_000_000, 10_000_000), new Template.Bounds(1, 1)), t.resources());
        assertEquals(Map.of("/tmp", new Template.TmpfsRule(256L << 20)), t.tmpfs());
    }

    /** Sizes of the schema: exactly as many tmpfs mounts and as long a pattern or target as allowed are admitted. */
    @Test
    void collectionsAndStringsMayReachTheirLimitsExactly() throws IOException, PolicyException {
        Template eight = admitted(x -> {
            for (int i = 0; i < 7; i++) {
                sub(x, "tmpfs").put("/t" + i, map("sizeBytes", 1024));
            }
        });
        assertEquals(8, eight.tmpfs().size());
        String pattern = "x".repeat(1024);
        assertTrue(admitted(x -> sub(x, "env").put("LONG", map("pattern", pattern, "required", false)))
                .env().containsKey("LONG"));
        assertRefused("env.LONG.pattern: too_large",
                t -> sub(t, "env").put("LONG", map("pattern", pattern + "x", "required", false)));
        String target = "/" + "d".repeat(4095);
        assertTrue(admitted(x -> sub(x, "mounts").put(target, map("root", "instances", "readOnly", true)))
                .mounts().containsKey(target));
        // Too long to echo: the problem names the map it lies in.
        assertRefused("mounts: too_large",
                t -> sub(t, "mounts").put(target + "d", map("root", "instances", "readOnly", true)));
    }

    /** The record refuses a template that pins no image, whoever builds it. */
    @Test
    void aTemplateRecordPinsAnImageIdOrAManifestDigest() throws PolicyException {
        Template t = Catalog.embedded().find("demo-http", "1.0.0").orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> withDigests(t, Optional.empty(), Optional.empty()));
        assertEquals(t.imageId(), withDigests(t, t.imageId(), Optional.empty()).imageId());
        assertEquals(t.imageId(), withDigests(t, Optional.empty(), t.imageId()).manifestDigest());
    }

    private static Template withDigests(Template t, Optional<String> imageId, Optional<String> manifestDigest) {
        return new Template(t.id(), t.version(), t.image(), imageId, manifestDigest, t.command(), t.entrypoint(),
                t.capAdd(), t.env(), t.mounts(), t.ports(), t.resources(), t.readOnlyRootfs(), t.tmpfs(),
                t.networks(), t.workingDir(), t.stopSignal(), t.restartPolicy());
    }

    /** The template's parts check their own ranges, so a hand-built one holds no value a file could not. */
    @Test
    void theTemplatePartsHoldTheirBounds() {
        assertEquals(1, new Template.PortRule(1, Protocol.TCP).containerPort());
        assertEquals(65535, new Template.PortRule(65535, Protocol.TCP).containerPort());
        assertThrows(IllegalArgumentException.class, () -> new Template.PortRule(0, Protocol.TCP));
        assertThrows(IllegalArgumentException.class, () -> new Template.PortRule(65536, Protocol.TCP));
        assertEquals(1, new Template.Bounds(1, 1).max());
        assertThrows(IllegalArgumentException.class, () -> new Template.Bounds(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Template.Bounds(2, 1));
        assertEquals(1, new Template.TmpfsRule(1).sizeBytes());
        assertThrows(IllegalArgumentException.class, () -> new Template.TmpfsRule(0));
        assertThrows(IllegalArgumentException.class, () -> new Template.NetworkRule(true, Set.of("a")));
        assertThrows(IllegalArgumentException.class, () -> new Template.NetworkRule(false, Set.of()));
        assertTrue(new Template.NetworkRule(false, Set.of("a")).permits("a"));
    }

    /** Two env rules are the same rule when pattern text, flags and required are; only then. */
    @Test
    void envRulesAreEqualByTheirPatternTextFlagsAndRequired() {
        Template.EnvRule rule = new Template.EnvRule(Pattern.compile("[a-z]+"), true);
        Template.EnvRule same = new Template.EnvRule(Pattern.compile("[a-z]+"), true);
        assertEquals(rule, same);
        assertEquals(rule.hashCode(), same.hashCode());
        assertNotEquals(rule, new Template.EnvRule(Pattern.compile("[a-z]*"), true));
        assertNotEquals(rule, new Template.EnvRule(Pattern.compile("[a-z]+"), false));
        assertNotEquals(rule, new Template.EnvRule(Pattern.compile("[a-z]+", Pattern.CASE_INSENSITIVE), true));
    }

    /** A file of exactly the largest size loads; one byte more is refused before it is parsed. */
    @Test
    void aTemplateFileMayBeExactly64KiBAndNotOneByteMore() throws IOException, PolicyException {
        byte[] json = Fixture.json(TestCatalog.demoTemplate());
        byte[] full = (new String(json, StandardCharsets.UTF_8)
                + " ".repeat(Catalog.MAX_TEMPLATE_BYTES - json.length)).getBytes(StandardCharsets.UTF_8);
        assertEquals(1, Catalog.load(rawCatalog(tmp.resolve("full"), "demo-http/1.0.0.json", full))
                .templates().size());
        byte[] over = java.util.Arrays.copyOf(full, full.length + 1);
        over[full.length] = ' ';
        Path dir = rawCatalog(tmp.resolve("over"), "demo-http/1.0.0.json", over);
        PolicyException e = assertThrows(PolicyException.class, () -> Catalog.load(dir));
        assertEquals("policy: catalog: demo-http/1.0.0.json is over 65536 bytes", e.getMessage());
    }

    /** A list of network names is read whole or refused: mistyped, too long or naming one network twice. */
    @Test
    void networkNamesAreAListOfDistinctNames() throws IOException, PolicyException {
        assertRefused("networks.names: wrong_type", t -> t.put("networks", map("names", "dogama-games")));
        List<Object> many = list();
        for (int i = 0; i <= PlanParser.MAX_NETWORKS; i++) {
            many.add("net-" + i);
        }
        assertRefused("networks.names: too_large", t -> t.put("networks", map("names", many)));
        assertRefused("networks.names: network_not_approved",
                t -> t.put("networks", map("names", list("dogama-games", "dogama-games"))));
        assertEquals(new Template.NetworkRule(false, Set.of("dogama-games", "dogama-web")),
                admitted(t -> t.put("networks", map("names", list("dogama-games", "dogama-web")))).networks());
    }

    /** On failure, 1 retry is the least (0 would be unlimited to Docker). */
    @Test
    void onFailureMayRetryExactlyOnce() throws IOException, PolicyException {
        assertEquals(new io.dogama.agent.core.ContainerSpec.RestartPolicy(
                io.dogama.agent.core.ContainerSpec.RestartPolicy.Mode.ON_FAILURE, 1),
                admitted(t -> t.put("restartPolicy", map("mode", "on-failure", "maxRetries", 1))).restartPolicy());
    }
}
