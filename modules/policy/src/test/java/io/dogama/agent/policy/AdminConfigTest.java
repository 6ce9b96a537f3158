package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.json;
import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;
import static io.dogama.agent.policy.Fixture.sub;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The administrator configuration of SPEC section 11: its exact shape and every refusal. */
class AdminConfigTest {
    /** 2^53 - 1, the largest integer a JSON number carries exactly. */
    private static final long MAX_EXACT = (1L << 53) - 1;
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

    private void assertRefused(String expected, Consumer<Map<String, Object>> change) {
        Map<String, Object> config = f.configMap();
        change.accept(config);
        PolicyException e = assertThrows(PolicyException.class, () -> AdminConfig.parse(json(config)), expected);
        assertTrue(e.getMessage().contains(expected), () -> "expected '" + expected + "' in " + e.getMessage());
        assertTrue(e.getMessage().startsWith("policy: config: "), e.getMessage());
    }

    @Test
    void parsesTheSpecShape() throws PolicyException {
        AdminConfig c = f.config();
        assertEquals(new AdminConfig.Listen("127.0.0.1", 8480), c.listen());
        assertEquals(f.socket, c.dockerSocket());
        assertEquals(Map.of("instances", f.instances), c.allowedRoots());
        assertEquals(List.of("dogama-games", "dogama-web"), c.networks());
        assertEquals(List.of("0.0.0.0", "127.0.0.1"), c.hostIps());
        assertEquals(new AdminConfig.PortRange(20000, 40000), c.hostPorts());
        assertEquals(new AdminConfig.Limits(8589934592L, 4000000000L, 1024, 200), c.limits());
        assertFalse(c.allowRootUser());
    }

    @Test
    void theSpecExampleFileParsesOnceItsPathsExist() throws IOException, PolicyException {
        String example = """
                {
                  "listen": {"host": "0.0.0.0", "port": 8480},
                  "dockerSocket": "/var/run/docker.sock",
                  "secretFile": "/run/secrets/dogama-agent-hmac",
                  "dataDir": "/var/lib/dogama-agent",
                  "allowedRoots": {"instances": "ROOT"},
                  "networks": ["dogama-games"],
                  "hostIps": ["0.0.0.0"],
                  "hostPorts": {"min": 20000, "max": 40000},
                  "limits": {"memoryBytes": 8589934592, "nanoCpus": 4000000000, "pidsLimit": 1024, "instances": 200},
                  "allowRootUser": false
                }
                """.replace("ROOT", f.instances.toString());
        AdminConfig c = AdminConfig.parse(example.getBytes(StandardCharsets.UTF_8));
        assertEquals(Path.of("/var/run/docker.sock"), c.dockerSocket());
    }

    @Test
    void rootsAreResolvedToTheirRealPaths() throws IOException, PolicyException {
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), f.instances);
        Map<String, Object> config = f.configMap();
        config.put("allowedRoots", map("instances", alias.toString()));
        assertEquals(f.instances, AdminConfig.parse(json(config)).allowedRoots().get("instances"));
    }

    @Test
    void unknownMissingDuplicateAndMistypedFieldsAreErrors() {
        assertRefused("debug: unknown_field", c -> c.put("debug", true));
        assertRefused("listen.tls: unknown_field", c -> sub(c, "listen").put("tls", false));
        assertRefused("allowRootUser: missing_field", c -> c.remove("allowRootUser"));
        assertRefused("limits.instances: missing_field", c -> sub(c, "limits").remove("instances"));
        assertRefused("hostPorts.min: wrong_type", c -> sub(c, "hostPorts").put("min", "20000"));
        assertRefused("dataDir: null_value", c -> c.put("dataDir", null));
        PolicyException e = assertThrows(PolicyException.class, () -> AdminConfig.parse(
                new String(json(f.configMap()), StandardCharsets.UTF_8).replaceFirst("\\{", "{\"allowRootUser\":true,")
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("allowRootUser: duplicate_key"), e.getMessage());
        assertThrows(PolicyException.class, () -> AdminConfig.parse("{".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theFilesystemRootIsNeverAnAllowedRoot() {
        assertRefused("allowedRoots.instances: is_filesystem_root", c -> c.put("allowedRoots", map("instances", "/")));
    }

    /**
     * One root inside another: a template of the outer root could name the inner root itself as a source (a source
     * may be anything strictly below its own root) and mount it whole, whatever templates of the inner one allow.
     */
    @Test
    void aRootMayNeitherContainNorLieInsideAnotherRoot() throws IOException {
        Path inner = Files.createDirectories(f.instances.resolve("shared"));
        assertRefused("allowedRoots.instances: overlaps_allowed_root", c -> c.put("allowedRoots",
                map("instances", f.instances.toString(), "shared", inner.toString())));
        assertRefused("allowedRoots.shared: overlaps_allowed_root", c -> c.put("allowedRoots",
                map("instances", f.instances.toString(), "shared", inner.toString())));
        Path link = Files.createSymbolicLink(tmp.resolve("roundabout"), inner); // the same through a link
        assertRefused("allowedRoots.shared: overlaps_allowed_root", c -> c.put("allowedRoots",
                map("instances", f.instances.toString(), "shared", link.toString())));
        assertRefused("allowedRoots.twice: overlaps_allowed_root", c -> c.put("allowedRoots",
                map("instances", f.instances.toString(), "twice", f.instances.toString())));
        Path beside = Files.createDirectories(tmp.resolve("beside"));
        Map<String, Object> config = f.configMap();
        config.put("allowedRoots", map("instances", f.instances.toString(), "beside", beside.toString()));
        assertDoesNotThrow(() -> AdminConfig.parse(json(config)), "two roots side by side");
    }

    @Test
    void aRootMayNeitherContainNorLieInsideTheDockerSocketsFolder() {
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("allowedRoots",
                map("instances", f.socketDir.toString())));
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("allowedRoots",
                map("instances", f.dir.resolve("run").toString())));
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("allowedRoots", map("instances",
                f.dir.toString())));
    }

    @Test
    void aRootReachingTheSocketThroughASymlinkIsRefused() throws IOException {
        Path link = Files.createSymbolicLink(tmp.resolve("innocent"), f.socketDir);
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("allowedRoots",
                map("instances", link.toString())));
        // ... and so is a socket path that reaches a root through a symlink.
        Path sockLink = Files.createSymbolicLink(f.instances.resolve("docker.sock"), f.socket);
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("dockerSocket", sockLink.toString()));
    }

    @Test
    void aRootMayNeitherContainNorLieInsideTheDataDirectory() throws IOException {
        Path inside = Files.createDirectories(f.dataDir.resolve("instances"));
        assertRefused("allowedRoots.instances: data_dir", c -> c.put("allowedRoots", map("instances",
                inside.toString())));
        assertRefused("allowedRoots.instances: data_dir", c -> c.put("dataDir", f.instances.resolve("agent")
                .toString()));
    }

    @Test
    void aRootMayNotContainTheSecretFile() {
        assertRefused("allowedRoots.instances: contains_secret_file", c -> c.put("secretFile",
                f.instances.resolve("hmac").toString()));
    }

    @Test
    void rootsMustExistAsDirectoriesWithCleanAbsolutePaths() throws IOException {
        assertRefused("allowedRoots.instances: not_found", c -> c.put("allowedRoots", map("instances",
                tmp.resolve("nope").toString())));
        Path file = Files.writeString(tmp.resolve("file"), "x");
        assertRefused("allowedRoots.instances: not_a_directory", c -> c.put("allowedRoots", map("instances",
                file.toString())));
        assertRefused("allowedRoots.instances: not_absolute", c -> c.put("allowedRoots", map("instances", "srv")));
        assertRefused("allowedRoots.instances: dot_segment", c -> c.put("allowedRoots", map("instances",
                f.instances + "/../instances")));
        assertRefused("allowedRoots: empty", c -> c.put("allowedRoots", map()));
        assertRefused("allowedRoots.Bad_Name: invalid_root_name", c -> c.put("allowedRoots", map("Bad_Name",
                f.instances.toString())));
        assertRefused("dockerSocket: not_absolute", c -> c.put("dockerSocket", "docker.sock"));
    }

    @Test
    void networksAreANonEmptyListOfApprovableNames() {
        assertRefused("networks: empty", c -> c.put("networks", list()));
        for (String n : List.of("host", "none", "bridge", "default", "container:x", "HOST", "bad name", "db", "cafe")) {
            assertRefused("networks[0]: network_not_approved", c -> c.put("networks", list(n)));
        }
        assertRefused("networks[1]: duplicate_network", c -> c.put("networks", list("n", "n")));
    }

    @Test
    void hostIpsAreLiteralAddresses() throws PolicyException {
        for (String ip : List.of("localhost", "256.0.0.1", "1.2.3", "01.2.3.4", "[::1]", "fe80::1%eth0", "")) {
            assertRefused("hostIps[0]: not_ip_literal", c -> c.put("hostIps", list(ip)));
        }
        assertRefused("hostIps: empty", c -> c.put("hostIps", list()));
        // A plan's hostIp is compared with these as written: another spelling of an address would be a second
        // address to the port rules, and two instances could claim one host port.
        assertRefused("hostIps[0]: not_canonical_ip (write ::)", c -> c.put("hostIps", list("0:0:0:0:0:0:0:0")));
        assertRefused("hostIps[1]: not_canonical_ip (write 127.0.0.1)",
                c -> c.put("hostIps", list("127.0.0.1", "::ffff:127.0.0.1")));
        assertRefused("hostIps[0]: not_canonical_ip (write fd00::1)", c -> c.put("hostIps", list("FD00::1")));
        assertRefused("hostIps[0]: not_canonical_ip (write ::)", c -> c.put("hostIps", list("::0")));
        assertRefused("listen.host: not_ip_literal", c -> sub(c, "listen").put("host", "example.com"));
        Map<String, Object> config = f.configMap();
        config.put("hostIps", list("::", "::1", "192.168.1.10"));
        assertEquals(List.of("::", "::1", "192.168.1.10"), AdminConfig.parse(json(config)).hostIps());
    }

    @Test
    void portsAndLimitsAreInRange() throws PolicyException {
        assertRefused("hostPorts: invalid_range", c -> c.put("hostPorts", map("min", 40000, "max", 20000)));
        assertRefused("hostPorts: invalid_range", c -> c.put("hostPorts", map("min", 0, "max", 20000)));
        assertRefused("hostPorts: invalid_range", c -> c.put("hostPorts", map("min", 1, "max", 65536)));
        assertRefused("listen.port: port_out_of_range", c -> sub(c, "listen").put("port", 0));
        // A plan could publish the agent's own port: a container started before the agent would take its requests.
        assertRefused("hostPorts: contains_listen_port", c -> c.put("hostPorts", map("min", 8000, "max", 8480)));
        assertRefused("hostPorts: contains_listen_port", c -> c.put("hostPorts", map("min", 8480, "max", 8480)));
        assertRefused("hostPorts: contains_listen_port", c -> {
            c.put("hostPorts", map("min", 8000, "max", 9000));
            c.put("hostIps", list("192.0.2.10", "0.0.0.0"));
        });
        Map<String, Object> below = f.configMap();
        below.put("hostPorts", map("min", 8000, "max", 8479));
        assertEquals(8479, AdminConfig.parse(json(below)).hostPorts().max());
        // Only where a binding could take the agent's own address: another address cannot.
        Map<String, Object> elsewhere = f.configMap();
        elsewhere.put("hostPorts", map("min", 8000, "max", 9000));
        elsewhere.put("hostIps", list("192.0.2.10"));
        assertEquals(List.of("192.0.2.10"), AdminConfig.parse(json(elsewhere)).hostIps());
        assertRefused("limits.memoryBytes: out_of_range", c -> sub(c, "limits").put("memoryBytes", 0));
        assertRefused("limits.pidsLimit: out_of_range", c -> sub(c, "limits").put("pidsLimit", -1));
        assertRefused("limits.instances: out_of_range", c -> sub(c, "limits").put("instances", 10001));
    }

    @Test
    void everyProblemIsListed() {
        Map<String, Object> config = f.configMap();
        config.put("networks", list());
        config.put("hostIps", list("x"));
        config.put("allowedRoots", map("instances", "/"));
        PolicyException e = assertThrows(PolicyException.class, () -> AdminConfig.parse(json(config)));
        assertEquals(3, e.getMessage().split("; ").length, e.getMessage());
    }

    @Test
    void aRevision11FileWithEveryOptionalFieldLoads() throws IOException, PolicyException {
        Path metrics = Files.createDirectories(tmp.resolve("textfile")).resolve("dogama.prom");
        Path audit = Files.createDirectories(tmp.resolve("log/dogama-agent"));
        Map<String, Object> config = f.configMap();
        config.put("customLabelPrefixes", list("owner", "team."));
        config.put("metricsFile", metrics.toString());
        config.put("audit", map("dir", audit.toString(), "maxFileBytes", 67108864));
        AdminConfig c = AdminConfig.parse(json(config));
        assertEquals(List.of("owner", "team."), c.customLabelPrefixes());
        assertEquals(java.util.Optional.of(metrics), c.metricsFile());
        assertEquals(new AdminConfig.Audit(audit, 67108864), c.audit());
    }

    @Test
    void withoutTheOptionalFieldsTheDefaultsApply() throws PolicyException {
        AdminConfig c = f.config();
        assertEquals(List.of(), c.customLabelPrefixes(), "no narrowing");
        assertEquals(java.util.Optional.empty(), c.metricsFile());
        assertEquals(new AdminConfig.Audit(f.dataDir.resolve("audit"), AdminConfig.DEFAULT_AUDIT_MAX_FILE_BYTES),
                c.audit());
        Map<String, Object> config = f.configMap();
        config.put("audit", map("maxFileBytes", 1048576));
        assertEquals(new AdminConfig.Audit(f.dataDir.resolve("audit"), 1048576),
                assertDoesNotThrow(() -> AdminConfig.parse(json(config))).audit());
    }

    @Test
    void customLabelPrefixesAreCheckedAtStart() {
        assertRefused("customLabelPrefixes: count", c -> c.put("customLabelPrefixes", list()));
        assertRefused("customLabelPrefixes: too_large", c -> c.put("customLabelPrefixes",
                new java.util.ArrayList<Object>(java.util.Collections.nCopies(33, "a"))));
        for (String bad : List.of("", "Owner", ".x", "-x", "a b", "a/b")) {
            assertRefused("customLabelPrefixes[0]: invalid_prefix", c -> c.put("customLabelPrefixes", list(bad)));
        }
        assertRefused("customLabelPrefixes[0]: reserved_label", c -> c.put("customLabelPrefixes", list("io.dogama.")));
        assertRefused("customLabelPrefixes[0]: foreign_label_namespace", c -> c.put("customLabelPrefixes",
                list("traefik.http.")));
        assertRefused("customLabelPrefixes[1]: duplicate", c -> c.put("customLabelPrefixes", list("a", "a")));
        assertRefused("customLabelPrefixes: wrong_type", c -> c.put("customLabelPrefixes", "owner"));
        assertRefused("customLabelPrefixes: null_value", c -> c.put("customLabelPrefixes", null));
    }

    @Test
    void theMetricsFileAndTheAuditFolderAreCheckedAtStart() {
        assertRefused("metricsFile: not_absolute", c -> c.put("metricsFile", "dogama.prom"));
        assertRefused("metricsFile: dot_segment", c -> c.put("metricsFile", "/var/../dogama.prom"));
        assertRefused("metricsFile: null_value", c -> c.put("metricsFile", null));
        // A container could rewrite a file below an allowed root, or swap a folder on the way to it.
        assertRefused("metricsFile: inside_allowed_root", c -> c.put("metricsFile",
                f.data.resolve("dogama.prom").toString()));
        assertRefused("metricsFile: docker_socket", c -> c.put("metricsFile", f.socketDir.resolve("m.prom")
                .toString()));
        // Replaced by a rename: inside the agent's own folders it could take the name of a key, the registry
        // or a log (and would be the one file there others may read), or replace the secret.
        assertRefused("metricsFile: data_dir", c -> c.put("metricsFile", f.dataDir.resolve("registry.key")
                .toString()));
        assertRefused("metricsFile: data_dir", c -> c.put("metricsFile", f.dataDir.resolve("audit/m.prom")
                .toString()));
        Path auditDir = f.dir.resolve("log");
        assertRefused("metricsFile: data_dir", c -> {
            c.put("audit", map("dir", auditDir.toString()));
            c.put("metricsFile", auditDir.resolve("audit.key").toString());
        });
        assertRefused("metricsFile: is_secret_file", c -> c.put("metricsFile", c.get("secretFile")));
        assertRefused("audit.dir: inside_allowed_root", c -> c.put("audit", map("dir", f.data.toString())));
        assertRefused("audit.dir: inside_allowed_root", c -> c.put("audit", map("dir", f.dir.resolve("srv")
                .toString())));
        assertRefused("audit.dir: not_absolute", c -> c.put("audit", map("dir", "audit")));
        assertRefused("audit.maxFileBytes: out_of_range", c -> c.put("audit", map("maxFileBytes", 1024)));
        assertRefused("audit.maxFileBytes: out_of_range", c -> c.put("audit", map("maxFileBytes",
                AdminConfig.MAX_AUDIT_FILE_BYTES + 1)));
        assertRefused("audit.rotate: unknown_field", c -> c.put("audit", map("rotate", true)));
    }

    @Test
    void theConstructorAppliesThePathRulesToo() throws PolicyException {
        AdminConfig c = f.config();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AdminConfig(c.listen(),
                c.dockerSocket(), c.secretFile(), c.dataDir(), Map.of("all", Path.of("/")), c.networks(),
                c.hostIps(), c.hostPorts(), c.limits(), false));
        assertTrue(e.getMessage().contains("is_filesystem_root"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig(c.listen(), c.dockerSocket(),
                c.secretFile(), c.dataDir(), c.allowedRoots(), List.of("host"), c.hostIps(), c.hostPorts(),
                c.limits(), false));
    }

    private static String refusal(byte[] bytes) {
        PolicyException e = assertThrows(PolicyException.class, () -> AdminConfig.parse(bytes));
        assertTrue(e.getMessage().startsWith("policy: config: "), e.getMessage());
        return e.getMessage();
    }

    private static String text(Map<String, Object> config) {
        return new String(json(config), StandardCharsets.UTF_8);
    }

    private AdminConfig accepted(Consumer<Map<String, Object>> change) {
        Map<String, Object> config = f.configMap();
        change.accept(config);
        return assertDoesNotThrow(() -> AdminConfig.parse(json(config)));
    }

    /** The same config built through the canonical constructor, with the given parts replaced. */
    private static AdminConfig rebuild(AdminConfig c, Map<String, Path> roots, Map<String, Path> configured,
            AdminConfig.PortRange ports, List<String> prefixes) {
        return new AdminConfig(c.listen(), c.dockerSocket(), c.secretFile(), c.dataDir(), roots, configured,
                c.networks(), c.hostIps(), ports, c.limits(), false, prefixes, Optional.empty(), c.audit());
    }

    private static String constructorRefusal(org.junit.jupiter.api.function.Executable build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
        return e.getMessage();
    }

    /** A file whose top level is not an object is refused with its problem, never an internal error. */
    @Test
    void aConfigWhoseTopLevelIsNotAnObjectIsRefused() {
        assertEquals("policy: config: $: wrong_type", refusal(Fixture.utf8("[]")));
        assertEquals("policy: config: $: null_value", refusal(Fixture.utf8("null")));
    }

    /** Each required object or path missing is reported as such, and the others are still read. */
    @Test
    void aMissingRequiredObjectOrPathIsReportedNotACrash() {
        assertRefused("listen: missing_field", c -> c.remove("listen"));
        assertRefused("hostPorts: missing_field", c -> c.remove("hostPorts"));
        assertRefused("limits: missing_field", c -> c.remove("limits"));
        assertRefused("dockerSocket: missing_field", c -> c.remove("dockerSocket"));
        assertRefused("allowRootUser: null_value", c -> c.put("allowRootUser", null));
        String e = refusal(json(change(c -> c.remove("allowedRoots"))));
        assertTrue(e.contains("allowedRoots: missing_field") && !e.contains("allowedRoots: wrong_type"), e);
    }

    /** The file is read whole up to 64 KiB, not one byte more (SPEC 11). */
    @Test
    void theConfigMayBeExactly64KiBAndNotOneByteMore() {
        String config = text(f.configMap());
        String full = config + " ".repeat(AdminConfig.MAX_CONFIG_BYTES - config.length());
        assertEquals(f.instances, assertDoesNotThrow(() -> AdminConfig.parse(Fixture.utf8(full)))
                .allowedRoots().get("instances"));
        assertEquals("policy: config: larger than 65536 bytes", refusal(Fixture.utf8(full + " ")));
    }

    @Test
    void theListenPortAndTheHostPortRangeSpanExactly1To65535() {
        assertEquals(65535, accepted(c -> sub(c, "listen").put("port", 65535)).listen().port());
        assertEquals(1, accepted(c -> sub(c, "listen").put("port", 1)).listen().port());
        assertRefused("listen.port: port_out_of_range", c -> sub(c, "listen").put("port", 65536));
        assertEquals(new AdminConfig.PortRange(1, 65535), accepted(c -> {
            c.put("hostPorts", map("min", 1, "max", 65535));
            c.put("hostIps", list("192.0.2.10"));
        }).hostPorts());
        assertEquals(new AdminConfig.PortRange(30000, 30000),
                accepted(c -> c.put("hostPorts", map("min", 30000, "max", 30000))).hostPorts());
        // The agent's own port at either end of the scale is still kept out of the range.
        assertRefused("hostPorts: contains_listen_port", c -> {
            sub(c, "listen").put("port", 1);
            c.put("hostPorts", map("min", 1, "max", 100));
        });
        assertRefused("hostPorts: contains_listen_port", c -> {
            sub(c, "listen").put("port", 65535);
            c.put("hostPorts", map("min", 60000, "max", 65535));
        });
    }

    @Test
    void limitsAndAuditSizesAcceptTheirExactBounds() {
        assertEquals(AdminConfig.MAX_INSTANCES,
                accepted(c -> sub(c, "limits").put("instances", AdminConfig.MAX_INSTANCES)).limits().instances());
        assertEquals(1, accepted(c -> sub(c, "limits").put("pidsLimit", 1)).limits().pidsLimit());
        assertEquals(AdminConfig.MIN_AUDIT_FILE_BYTES, accepted(c -> c.put("audit",
                map("maxFileBytes", AdminConfig.MIN_AUDIT_FILE_BYTES))).audit().maxFileBytes());
        assertEquals(AdminConfig.MAX_AUDIT_FILE_BYTES, accepted(c -> c.put("audit",
                map("maxFileBytes", AdminConfig.MAX_AUDIT_FILE_BYTES))).audit().maxFileBytes());
        assertRefused("audit.maxFileBytes: out_of_range", c -> c.put("audit",
                map("maxFileBytes", AdminConfig.MIN_AUDIT_FILE_BYTES - 1)));
    }

    /**
     * Integers are exact up to 2^53 - 1 either way (RFC 8785's number form): one beyond is out of range as a number,
     * not silently rounded, and a negative one within it is read as what it is.
     */
    @Test
    void integersAreExactUpTo2Pow53Minus1() {
        Map<String, Object> config = f.configMap();
        sub(config, "limits").put("memoryBytes", 123454321L);
        String t = text(config);
        assertEquals(MAX_EXACT, assertDoesNotThrow(() -> AdminConfig.parse(Fixture.utf8(
                t.replace("\"memoryBytes\":123454321", "\"memoryBytes\":" + MAX_EXACT)))).limits().memoryBytes());
        String over = t.replace("\"memoryBytes\":123454321", "\"memoryBytes\":" + (MAX_EXACT + 1));
        assertTrue(refusal(Fixture.utf8(over)).contains("limits.memoryBytes: out_of_range"), over);
        String port = text(f.configMap()).replace("\"port\":8480", "\"port\":" + -MAX_EXACT);
        assertTrue(refusal(Fixture.utf8(port)).contains("listen.port: port_out_of_range"), port);
        String beyond = text(f.configMap()).replace("\"port\":8480", "\"port\":" + (-MAX_EXACT - 1));
        String e = refusal(Fixture.utf8(beyond));
        assertTrue(e.contains("listen.port: out_of_range") && !e.contains("port_out_of_range"), e);
    }

    /** Every problem is listed: an empty root map is reported even when another field stops the later checks. */
    @Test
    void anEmptyRootMapIsReportedBesideAMistypedField() {
        Map<String, Object> config = f.configMap();
        config.put("allowedRoots", map());
        config.put("networks", "dogama-games");
        String e = refusal(json(config));
        assertTrue(e.contains("allowedRoots: empty") && e.contains("networks: wrong_type"), e);
        assertRefused("networks[1]: null_value",
                c -> c.put("networks", java.util.Arrays.asList("dogama-games", null)));
    }

    /** A root refused for its spelling is never looked up: the file system is not asked about it. */
    @Test
    void aRootRefusedForItsSyntaxIsNeverResolved() throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        String e = refusal(json(change(c -> c.put("allowedRoots", map("instances",
                f.instances + "/../../file")))));
        assertTrue(e.contains("allowedRoots.instances: dot_segment") && !e.contains("not_a_directory"), e);
        assertTrue(Files.isRegularFile(file));
    }

    private Map<String, Object> change(Consumer<Map<String, Object>> c) {
        Map<String, Object> config = f.configMap();
        c.accept(config);
        return config;
    }

    /**
     * "/" is no file path: as the socket, the data directory or the metrics file it is not absolute in the sense of
     * SPEC 11 (a path with at least one name), and an already refused path is not compared with the roots.
     */
    @Test
    void theFilesystemRootIsNoSocketDataDirOrMetricsFile() {
        assertRefused("dockerSocket: not_absolute", c -> c.put("dockerSocket", "/"));
        String e = refusal(json(change(c -> c.put("dataDir", "/"))));
        assertTrue(e.contains("dataDir: not_absolute") && !e.contains("allowedRoots.instances"), e);
        assertRefused("metricsFile: not_absolute", c -> c.put("metricsFile", "/"));
    }

    /**
     * A socket path that is a link to "/" makes "/" the socket's folder in its resolved form: every root lies inside
     * it, even though the link's own folder holds none.
     */
    @Test
    void aSocketLinkToTheFilesystemRootPutsEveryRootInTheSocketsFolder() throws IOException {
        Path link = Files.createSymbolicLink(f.outside.resolve("docker.sock"), Path.of("/"));
        assertRefused("allowedRoots.instances: docker_socket", c -> c.put("dockerSocket", link.toString()));
    }

    /** Two spellings of one address would be two addresses to the port rules; the same one twice is refused too. */
    @Test
    void aHostIpListedTwiceIsRefused() {
        assertRefused("hostIps[1]: duplicate", c -> c.put("hostIps", list("127.0.0.1", "127.0.0.1")));
    }

    /** A hand-built config is never laxer than a parsed one: the constructor applies the same rules. */
    @Test
    void theConstructorRefusesWhatTheParserRefuses() throws IOException, PolicyException {
        AdminConfig c = f.config();
        AdminConfig.PortRange ports = c.hostPorts();
        Map<String, Path> roots = c.allowedRoots();
        assertTrue(constructorRefusal(() -> rebuild(c, roots, Map.of("other", f.instances), ports, List.of()))
                .contains("allowedRoots: configured_root_differs"));
        assertTrue(constructorRefusal(() -> rebuild(c, roots, Map.of("instances", f.outside), ports, List.of()))
                .contains("allowedRoots.instances: configured_root_differs"));
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), f.instances);
        assertEquals(Map.of("instances", alias), rebuild(c, roots, Map.of("instances", alias), ports, List.of())
                .configuredRoots());
        assertTrue(constructorRefusal(() -> rebuild(c, roots, roots, new AdminConfig.PortRange(8000, 9000),
                List.of())).contains("hostPorts: contains_listen_port"));
        assertTrue(constructorRefusal(() -> rebuild(c, roots, roots, ports, List.of("Owner")))
                .contains("customLabelPrefixes[0]: invalid_prefix"));
        assertTrue(constructorRefusal(() -> rebuild(c, Map.of(), Map.of(), ports, List.of()))
                .contains("allowedRoots: empty"));
        Map<String, Path> relative = Map.of("srv", Path.of("srv"));
        assertTrue(constructorRefusal(() -> rebuild(c, relative, relative, ports, List.of()))
                .contains("allowedRoots.srv: not_absolute"));
    }

    /** The rule callers outside this module apply to paths only they know (SPEC 8.3): inside or around a root. */
    @Test
    void rootAroundNamesTheRootThatHoldsOrLiesInsideAPath() throws IOException, PolicyException {
        AdminConfig c = f.config();
        assertEquals(Optional.of("instances"), c.rootAround(f.data));
        assertEquals(Optional.of("instances"), c.rootAround(f.dir.resolve("srv")));
        assertEquals(Optional.empty(), c.rootAround(f.outside));
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), f.instances);
        assertEquals(Optional.of("instances"), c.rootAround(alias.resolve("demo-0001")));
    }

    /** Each record checks its own range, so a hand-built part can hold no value the file could not. */
    @Test
    void theNestedRecordsHoldTheirBounds() {
        assertEquals(1, new AdminConfig.Listen("127.0.0.1", 1).port());
        assertEquals(65535, new AdminConfig.Listen("127.0.0.1", 65535).port());
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Listen("127.0.0.1", 0));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Listen("127.0.0.1", 65536));

        AdminConfig.PortRange range = new AdminConfig.PortRange(1, 65535);
        assertEquals(5, new AdminConfig.PortRange(5, 5).max());
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.PortRange(0, 5));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.PortRange(1, 65536));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.PortRange(6, 5));
        AdminConfig.PortRange some = new AdminConfig.PortRange(20000, 40000);
        assertTrue(some.contains(20000) && some.contains(40000) && range.contains(65535));
        assertFalse(some.contains(19999) || some.contains(40001));

        Path dir = Path.of("/var/log/dogama");
        assertEquals(AdminConfig.MIN_AUDIT_FILE_BYTES,
                new AdminConfig.Audit(dir, AdminConfig.MIN_AUDIT_FILE_BYTES).maxFileBytes());
        assertEquals(AdminConfig.MAX_AUDIT_FILE_BYTES,
                new AdminConfig.Audit(dir, AdminConfig.MAX_AUDIT_FILE_BYTES).maxFileBytes());
        assertThrows(IllegalArgumentException.class,
                () -> new AdminConfig.Audit(dir, AdminConfig.MIN_AUDIT_FILE_BYTES - 1));
        assertThrows(IllegalArgumentException.class,
                () -> new AdminConfig.Audit(dir, AdminConfig.MAX_AUDIT_FILE_BYTES + 1));
        assertThrows(IllegalArgumentException.class,
                () -> new AdminConfig.Audit(Path.of("audit"), AdminConfig.MIN_AUDIT_FILE_BYTES));

        assertEquals(1, new AdminConfig.Limits(1, 1, 1, 1).instances());
        assertEquals(AdminConfig.MAX_INSTANCES, new AdminConfig.Limits(1, 1, 1, AdminConfig.MAX_INSTANCES).instances());
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Limits(0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Limits(1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Limits(1, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new AdminConfig.Limits(1, 1, 1, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new AdminConfig.Limits(1, 1, 1, AdminConfig.MAX_INSTANCES + 1));
    }

    /** Lists and maps may hold exactly as many entries as allowed; one more is too large, not read in part. */
    @Test
    void rootsAndNetworksMayReachTheirCountsExactly() throws IOException {
        Map<String, Object> roots = map();
        for (int i = 0; i < AdminConfig.MAX_ALLOWED_ROOTS; i++) {
            roots.put("r" + i, Files.createDirectories(tmp.resolve("roots/r" + i)).toString());
        }
        assertEquals(AdminConfig.MAX_ALLOWED_ROOTS, accepted(c -> c.put("allowedRoots", roots)).allowedRoots().size());
        List<Object> networks = list();
        for (int i = 0; i < AdminConfig.MAX_NETWORKS; i++) {
            networks.add("net-" + i);
        }
        assertEquals(networks, accepted(c -> c.put("networks", networks)).networks());
        roots.put("one-more", Files.createDirectories(tmp.resolve("roots/one-more")).toString());
        assertRefused("allowedRoots: too_large", c -> c.put("allowedRoots", roots));
        networks.add("net-more");
        assertRefused("networks: too_large", c -> c.put("networks", networks));
    }
}
