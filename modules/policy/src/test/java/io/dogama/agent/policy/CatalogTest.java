package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;
import static io.dogama.agent.policy.Fixture.sub;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.policy.internal.CatalogLock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog (SPEC section 7): lock, embedding, and the admission rules of every template. */
class CatalogTest {
    @TempDir
    Path tmp;

    /** The repository's catalog folder, passed in by the build. */
    static Path repositoryCatalog() {
        String dir = System.getProperty("dogama.catalog.dir");
        assertTrue(dir != null && !dir.isBlank(), "the build passes -Ddogama.catalog.dir");
        return Path.of(dir);
    }

    private Path copyOfRepositoryCatalog() throws IOException {
        Path copy = tmp.resolve("catalog");
        try (Stream<Path> files = Files.walk(repositoryCatalog())) {
            for (Path p : files.toList()) {
                Path target = copy.resolve(repositoryCatalog().relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return copy;
    }

    @Test
    void theRepositoryCatalogMatchesItsLock() {
        // This is the build's check: a released file edited without a new version fails the build here.
        assertEquals(List.of(), CatalogLock.verify(repositoryCatalog()));
    }

    @Test
    void editingOneByteOfAReleasedFileFailsTheLockCheck() throws IOException {
        Path copy = copyOfRepositoryCatalog();
        assertEquals(List.of(), CatalogLock.verify(copy));
        Path released = copy.resolve("demo-http/1.0.0.json");
        byte[] bytes = Files.readAllBytes(released);
        int i = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).indexOf("536870912");
        bytes[i] = '9';
        Files.write(released, bytes);
        List<String> problems = CatalogLock.verify(copy);
        assertEquals(1, problems.size(), problems::toString);
        assertTrue(problems.get(0).startsWith("demo-http/1.0.0.json: released file changed"), problems::toString);
        PolicyException e = assertThrows(PolicyException.class, () -> Catalog.load(copy));
        assertTrue(e.getMessage().contains("does not match its locked sha256"), e.getMessage());
    }

    @Test
    void aNewFileMustBeAddedToTheLockAndEveryLockedFileMustExist() throws IOException {
        Path copy = copyOfRepositoryCatalog();
        Map<String, Object> next = TestCatalog.demoTemplate();
        next.put("version", "1.0.1");
        Files.write(copy.resolve("demo-http/1.0.1.json"), Fixture.json(next));
        Files.writeString(copy.resolve("notes.txt"), "stray");
        assertEquals(List.of("notes.txt: unexpected entry in the catalog",
                "demo-http/1.0.1.json: not in catalog.lock (add a new version's file to the lock)"),
                CatalogLock.verify(copy));
        Files.delete(copy.resolve("notes.txt"));
        Files.delete(copy.resolve("demo-http/1.0.0.json"));
        Files.delete(copy.resolve("demo-http/1.0.1.json"));
        assertEquals(List.of("demo-http/1.0.0.json: in catalog.lock but missing"), CatalogLock.verify(copy));
        assertThrows(PolicyException.class, () -> Catalog.load(copy));
    }

    @Test
    void aMalformedLockIsRefused() throws IOException {
        Path copy = copyOfRepositoryCatalog();
        String lock = Files.readString(copy.resolve(Catalog.LOCK_FILE));
        Files.writeString(copy.resolve(Catalog.LOCK_FILE), lock + lock.lines().filter(l -> !l.startsWith("#"))
                .findFirst().orElseThrow() + "\n");
        assertTrue(CatalogLock.verify(copy).get(0).contains("twice"));
        Files.writeString(copy.resolve(Catalog.LOCK_FILE), "abc  demo-http/1.0.0.json\n");
        assertThrows(PolicyException.class, () -> Catalog.load(copy));
        Files.writeString(copy.resolve(Catalog.LOCK_FILE), "# nothing released\n");
        assertThrows(PolicyException.class, () -> Catalog.load(copy), "an empty catalog is invalid");
    }

    @Test
    void theEmbeddedCatalogIsTheRepositorysAndIsValid() throws IOException, PolicyException {
        for (String rel : List.of(Catalog.LOCK_FILE, "demo-http/1.0.0.json")) {
            try (InputStream in = Catalog.class.getResourceAsStream(Catalog.RESOURCE_DIR + rel)) {
                assertTrue(in != null, rel + " is embedded");
                assertArrayEquals(Files.readAllBytes(repositoryCatalog().resolve(rel)), in.readAllBytes(), rel);
            }
        }
        assertEquals(Catalog.load(repositoryCatalog()).templates(), Catalog.embedded().templates());
    }

    @Test
    void demoHttpIsPinnedAsSpecSection12Says() throws PolicyException {
        Template t = Catalog.embedded().find("demo-http", "1.0.0").orElseThrow();
        assertEquals("dogama/demo-http:1", t.image());
        assertEquals(Optional.of(Fixture.DEMO_IMAGE_ID), t.imageId(), "the ID scripts/demo-image prints");
        assertEquals(Optional.of(List.of("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data")), t.command());
        assertEquals(Optional.empty(), t.entrypoint());
        assertEquals(List.of(), t.capAdd());
        assertEquals(Map.of("/data", new Template.MountRule("instances", false)), t.mounts());
        assertEquals(Map.of("http", new Template.PortRule(8080, Protocol.TCP)), t.ports());
        assertEquals(1, t.env().size());
        Template.EnvRule greeting = t.env().get("GREETING");
        assertTrue(!greeting.required() && greeting.accepts("Hello, world!") && !greeting.accepts("a;b")
                && !greeting.accepts("x".repeat(65)));
        assertEquals(new Template.ResourceBounds(new Template.Bounds(16L << 20, 512L << 20),
                new Template.Bounds(100_000_000, 1_000_000_000), new Template.Bounds(32, 256)), t.resources());
        assertTrue(t.readOnlyRootfs());
        assertEquals(Map.of("/tmp", new Template.TmpfsRule(16L << 20)), t.tmpfs());
        assertEquals(Template.NetworkRule.ANY_APPROVED, t.networks());
        assertEquals(ContainerSpec.RestartPolicy.NO, t.restartPolicy());
        assertEquals(Optional.empty(), Catalog.embedded().find("demo-http", "1.0.1"));
    }

    private void assertRefused(String expected, Consumer<Map<String, Object>> change) throws IOException {
        assertRefused(tmp, expected, change);
    }

    /** The demo template with {@code change} applied is refused at load, with {@code expected} in the message. */
    static void assertRefused(Path tmp, String expected, Consumer<Map<String, Object>> change) throws IOException {
        Map<String, Object> t = TestCatalog.demoTemplate();
        change.accept(t);
        Path dir = Files.createTempDirectory(tmp, "cat");
        PolicyException e = assertThrows(PolicyException.class, () -> TestCatalog.load(dir, t), expected);
        assertTrue(e.getMessage().contains(expected), () -> "expected '" + expected + "' in " + e.getMessage());
        assertTrue(e.getMessage().startsWith("policy: catalog: "), e.getMessage());
    }

    @Test
    void theDemoTemplateAsWrittenByTheTestsIsAdmitted() throws IOException, PolicyException {
        assertEquals(Catalog.embedded().templates(), TestCatalog.load(tmp.resolve("same"), TestCatalog.demoTemplate())
                .templates());
    }

    @Test
    void theSchemaIsClosed() throws IOException {
        assertRefused("privileged: unknown_field", t -> t.put("privileged", true));
        assertRefused("mounts./data.propagation: unknown_field", t -> sub(sub(t, "mounts"), "/data")
                .put("propagation", "shared"));
        assertRefused("entrypoint: missing_field", t -> t.remove("entrypoint"));
        assertRefused("readOnlyRootfs: missing_field", t -> t.remove("readOnlyRootfs"));
        assertRefused("capAdd: null_value", t -> t.put("capAdd", null));
        assertRefused("resources.pidsLimit.max: wrong_type", t -> sub(sub(t, "resources"), "pidsLimit")
                .put("max", "256"));
    }

    @Test
    void theFileMustLieAtItsIdAndVersion() throws IOException {
        Map<String, Object> t = TestCatalog.demoTemplate();
        Path dir = TestCatalog.write(tmp.resolve("moved"), t);
        Files.move(dir.resolve("demo-http/1.0.0.json"), Files.createDirectories(dir.resolve("other-http"))
                .resolve("1.0.0.json"));
        Files.writeString(dir.resolve(Catalog.LOCK_FILE), Files.readString(dir.resolve(Catalog.LOCK_FILE))
                .replace("demo-http/", "other-http/"));
        PolicyException e = assertThrows(PolicyException.class, () -> Catalog.load(dir));
        assertTrue(e.getMessage().contains("id: path_mismatch"), e.getMessage());
    }

    @Test
    void theImageMustBePinned() throws IOException {
        assertRefused("imageId: image_not_pinned", t -> t.remove("imageId"));
        assertRefused("imageId: invalid_digest", t -> t.put("imageId", "sha256:ABC"));
        assertRefused("manifestDigest: invalid_digest", t -> t.put("manifestDigest", "md5:x"));
        assertRefused("image: invalid_reference", t -> t.put("image", "Dogama/Demo:1"));
        assertRefused("image: invalid_reference", t -> t.put("image", "dogama/demo http:1"));
    }

    @Test
    void commandAndEntrypointAreNullOrNonEmpty() throws IOException {
        assertRefused("command: empty_list", t -> t.put("command", list()));
        assertRefused("entrypoint: wrong_type", t -> t.put("entrypoint", "/bin/sh"));
    }

    @Test
    void capabilitiesComeFromTheAllowlistOnly() throws IOException {
        for (String cap : List.of("SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE", "ALL", "chown", "CAP_CHOWN")) {
            assertRefused("capAdd: not_allowlisted", t -> t.put("capAdd", list(cap)));
        }
        assertRefused("capAdd: duplicate", t -> t.put("capAdd", list("CHOWN", "CHOWN")));
    }

    @Test
    void envDeclarationsAreChecked() throws IOException {
        assertRefused("env.1BAD: env_key", t -> sub(t, "env").put("1BAD", map("pattern", ".*", "required", false)));
        assertRefused("env.X.pattern: invalid_pattern", t -> sub(t, "env").put("X", map("pattern", "(",
                "required", false)));
        assertRefused("env.X.required: missing_field", t -> sub(t, "env").put("X", map("pattern", ".*")));
        // A pattern that backtracks would let a signed request's value pin a request thread.
        assertRefused("env.X.pattern: backtracking_pattern", t -> sub(t, "env").put("X", map("pattern", "(.*a){12}",
                "required", false)));
    }

    @Test
    void mountAndTmpfsTargetsAreCleanAndNeverKernelPaths() throws IOException {
        for (String target : List.of("/", "/proc", "/sys/fs", "/dev", "/dev/shm")) {
            assertRefused("forbidden_target", t -> t.put("mounts", map(target, map("root", "instances",
                    "readOnly", false))));
        }
        assertRefused("mounts./data/../etc: dot_segment", t -> t.put("mounts", map("/data/../etc", map("root", "instances",
                "readOnly", false))));
        assertRefused("mounts.data: not_absolute", t -> t.put("mounts", map("data", map("root", "instances",
                "readOnly", false))));
        assertRefused("tmpfs: overlapping_targets", t -> sub(t, "tmpfs").put("/data/cache", map("sizeBytes", 1024)));
        assertRefused("tmpfs: overlapping_targets", t -> sub(t, "tmpfs").put("/data", map("sizeBytes", 1024)));
        assertRefused("mounts./data.root: invalid_root_name", t -> sub(sub(t, "mounts"), "/data").put("root", "/srv"));
        assertRefused("workingDir: not_absolute", t -> t.put("workingDir", "data"));
    }

    @Test
    void tmpfsIsBounded() throws IOException {
        assertRefused("tmpfs./tmp.sizeBytes: tmpfs_too_large", t -> sub(t, "tmpfs").put("/tmp",
                map("sizeBytes", 256L * 1024 * 1024 + 1)));
        assertRefused("tmpfs./tmp.sizeBytes: tmpfs_too_large", t -> sub(t, "tmpfs").put("/tmp", map("sizeBytes", 0)));
        assertRefused("tmpfs: too_large", t -> {
            for (int i = 0; i < 9; i++) {
                sub(t, "tmpfs").put("/t" + i, map("sizeBytes", 1024));
            }
        });
    }

    @Test
    void portsAreDeclaredOnce() throws IOException {
        assertRefused("ports.http.protocol: protocol_mismatch", t -> sub(sub(t, "ports"), "http")
                .put("protocol", "sctp"));
        assertRefused("ports.http.containerPort: port_out_of_range", t -> sub(sub(t, "ports"), "http")
                .put("containerPort", 0));
        assertRefused("duplicate_container_port", t -> sub(t, "ports").put("web", map("containerPort", 8080,
                "protocol", "tcp")));
        assertRefused("ports.Web_1: invalid_port_name", t -> sub(t, "ports").put("Web_1", map("containerPort", 81,
                "protocol", "tcp")));
    }

    @Test
    void resourceBoundsAreSane() throws IOException {
        assertRefused("resources.pidsLimit: invalid_bounds", t -> sub(sub(t, "resources"), "pidsLimit")
                .put("min", 300));
        assertRefused("resources.memoryBytes: invalid_bounds", t -> sub(sub(t, "resources"), "memoryBytes")
                .put("min", 1024));
        assertRefused("resources.nanoCpus: invalid_bounds", t -> sub(sub(t, "resources"), "nanoCpus").put("min", 0));
        assertRefused("resources.nanoCpus: invalid_bounds",
                t -> sub(sub(t, "resources"), "nanoCpus").put("min", 9_999_999));
        assertRefused("resources.memoryBytes: missing_field", t -> sub(t, "resources").remove("memoryBytes"));
    }

    @Test
    void networksAreAnyApprovedOrNamesNeverHost() throws IOException {
        assertRefused("networks: either_any_approved_or_names", t -> t.put("networks", map()));
        assertRefused("networks: either_any_approved_or_names", t -> t.put("networks", map("anyApproved", true,
                "names", list("a"))));
        assertRefused("networks.anyApproved: either_any_approved_or_names", t -> t.put("networks",
                map("anyApproved", false)));
        for (String n : List.of("host", "none", "bridge", "container:x", "default")) {
            assertRefused("networks.names: network_not_approved", t -> t.put("networks", map("names", list(n))));
        }
        assertRefused("networks.names: network_not_approved", t -> t.put("networks", map("names", list())));
    }

    @Test
    void restartPolicyIsNoUnlessStoppedOrBoundedOnFailure() throws IOException, PolicyException {
        assertRefused("restartPolicy.mode: invalid_restart_mode", t -> t.put("restartPolicy", map("mode", "always")));
        assertRefused("restartPolicy.maxRetries: invalid_retries", t -> t.put("restartPolicy",
                map("mode", "on-failure", "maxRetries", 11)));
        // Docker reads 0 retries as "unlimited".
        assertRefused("restartPolicy.maxRetries: invalid_retries", t -> t.put("restartPolicy",
                map("mode", "on-failure", "maxRetries", 0)));
        assertRefused("restartPolicy.maxRetries: invalid_retries", t -> t.put("restartPolicy",
                map("mode", "on-failure")));
        assertRefused("restartPolicy.maxRetries: unknown_field", t -> t.put("restartPolicy",
                map("mode", "no", "maxRetries", 3)));
        Map<String, Object> t = TestCatalog.demoTemplate();
        t.put("restartPolicy", map("mode", "on-failure", "maxRetries", 10));
        t.put("stopSignal", "SIGINT");
        t.put("workingDir", "/data");
        Template loaded = TestCatalog.load(tmp.resolve("ok"), t).templates().get(0);
        assertEquals(new ContainerSpec.RestartPolicy(ContainerSpec.RestartPolicy.Mode.ON_FAILURE, 10),
                loaded.restartPolicy());
        assertEquals(Optional.of("SIGINT"), loaded.stopSignal());
        assertEquals(Optional.of("/data"), loaded.workingDir());
    }

    @Test
    void stopSignalsComeFromTheAllowlist() throws IOException {
        assertRefused("stopSignal: not_allowlisted", t -> t.put("stopSignal", "SIGKILL"));
        assertRefused("stopSignal: not_allowlisted", t -> t.put("stopSignal", "9"));
    }

    /**
     * The lock is bounded by its own size, room for the most templates a catalog may hold: a catalog with one
     * template too many is refused for its count (before, the lock was read through a template's 64 KiB bound, so
     * the count could never be reached, and the embedded catalog's lock was cut there without a word), and a lock
     * over its size is refused as such, never parsed cut.
     */
    @Test
    void theLockHoldsAsManyLinesAsACatalogMayHaveTemplatesAndNoMore() throws IOException {
        Path copy = copyOfRepositoryCatalog();
        Path lock = copy.resolve(Catalog.LOCK_FILE);
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= Catalog.MAX_TEMPLATES; i++) {
            many.append("0".repeat(64)).append("  t-").append(i).append("/1.0.0.json\n");
        }
        assertTrue(many.length() > Catalog.MAX_TEMPLATE_BYTES && many.length() < Catalog.MAX_LOCK_BYTES);
        Files.writeString(lock, many);
        assertEquals("policy: catalog: more than " + Catalog.MAX_TEMPLATES + " templates",
                assertThrows(PolicyException.class, () -> Catalog.load(copy)).getMessage());
        Files.writeString(lock, "#".repeat(Catalog.MAX_LOCK_BYTES) + "\n");
        assertEquals("policy: catalog: catalog.lock is over " + Catalog.MAX_LOCK_BYTES + " bytes",
                assertThrows(PolicyException.class, () -> Catalog.load(copy)).getMessage());
    }

    /** Blank lines in the lock are layout, like comments; a bad line is named by its number, counted from 1. */
    @Test
    void lockLinesAreCountedFromOneAndBlankLinesAreSkipped() throws IOException, PolicyException {
        Path copy = copyOfRepositoryCatalog();
        Path lock = copy.resolve(Catalog.LOCK_FILE);
        String text = Files.readString(lock);
        Files.writeString(lock, "\n" + text.replace("\n", "\n\n"));
        assertEquals(List.of(), CatalogLock.verify(copy));
        assertEquals(Catalog.load(repositoryCatalog()).templates(), Catalog.load(copy).templates());
        Files.writeString(lock, "# released\nabc  demo-http/1.0.0.json\n");
        PolicyException e = assertThrows(PolicyException.class, () -> Catalog.load(copy));
        assertEquals("policy: catalog: catalog.lock line 2 is malformed", e.getMessage());
        // The path's parts are an ID and a version, or the line is not a lock line at all.
        String hash = "0".repeat(64);
        for (String rel : List.of("demo-http/latest.json", "demo-http/1.0.json", "Demo_Http/1.0.0.json")) {
            Files.writeString(lock, hash + "  " + rel + "\n");
            PolicyException bad = assertThrows(PolicyException.class, () -> Catalog.load(copy), rel);
            assertEquals("policy: catalog: catalog.lock line 1 is malformed", bad.getMessage());
        }
    }

    /** Inside a template's folder only regular {@code .json} files may lie; a lock that cannot be read is named. */
    @Test
    void theLockCheckNamesStrayEntriesInTemplateFoldersAndAMissingLock() throws IOException {
        Path copy = copyOfRepositoryCatalog();
        Files.writeString(copy.resolve("demo-http/notes.txt"), "stray");
        Files.createDirectories(copy.resolve("demo-http/2.0.0.json"));
        assertEquals(List.of("demo-http/2.0.0.json: unexpected entry in the catalog",
                "demo-http/notes.txt: unexpected entry in the catalog"), CatalogLock.verify(copy));
        Files.delete(copy.resolve(Catalog.LOCK_FILE));
        assertEquals(List.of("catalog.lock: cannot be read"), CatalogLock.verify(copy));
    }
}
