package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertProblem;
import static io.dogama.agent.e2e.Checks.assertRejected;
import static io.dogama.agent.e2e.Checks.assertRejectedWith;
import static io.dogama.agent.e2e.Checks.unchanged;
import static io.dogama.agent.e2e.Checks.v;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every plan-level negative category of the design note, through signed HTTP: each request is
 * refused with the rule of catalog/README.md and the engine shows no change and no container event
 * for this run (nothing was created, not even briefly).
 */
class PlanRejectionE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static Wire.Response create(Plans.Plan p) {
        return unchanged(e2e, () -> e2e.wire().post("/v1/instances", p.json()));
    }

    private static Wire.Response checkDisk(String... paths) {
        return unchanged(e2e, () -> e2e.wire().post("/v1/check-disk", Json.write(Map.of("paths", List.of(paths)))));
    }

    private static Plans.Plan withSource(Plans.Plan p, String source) {
        Plans.Plan q = p.copy();
        q.mount(0).put("source", source);
        return q;
    }

    @Test
    void forgedAndReservedLabelsAreRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("labels"));
        for (String key : List.of("io.dogama.instance-id", "io.dogama.managed", "io.dogama.plan-digest",
                "io.dogama.template-id", "io.dogama.template-version", "dogama.x", "io.dogama.anything")) {
            Plans.Plan q = p.copy();
            q.map("labels").put(key, "forged");
            assertRejected(create(q), v("labels." + key, "reserved_label"));
        }
        // any case: upper case is also not a label key at all
        for (String key : List.of("IO.DOGAMA.managed", "Dogama.x")) {
            Plans.Plan q = p.copy();
            q.map("labels").put(key, "true");
            assertRejectedWith(create(q), v("labels." + key, "reserved_label"));
        }
        assertFalse(e2e.wire().get("/v1/instances").body().contains(p.id()));
    }

    @Test
    void labelsThatSteerOtherHostToolsAreRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("steer"));
        for (String key : List.of("traefik.http.routers.x.rule", "com.docker.compose.project",
                "com.centurylinklabs.watchtower.enable", "autoheal")) {
            Plans.Plan q = p.copy();
            q.map("labels").put(key, "true");
            assertRejected(create(q), v("labels." + key, "foreign_label_namespace"));
        }
        assertFalse(e2e.wire().get("/v1/instances").body().contains(p.id()));
    }

    @Test
    void pathTraversalInMountSourcesIsRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("trav"));
        String root = e2e.root().toString();
        String field = "mounts[0].source";
        assertRejected(create(withSource(p, root + "/../outside")), v(field, "dot_segment"));
        assertRejected(create(withSource(p, root + "/" + p.id() + "/./data")), v(field, "dot_segment"));
        assertRejected(create(withSource(p, root + "/" + p.id() + "/data/..")), v(field, "dot_segment"));
        assertRejected(create(withSource(p, root + "//" + p.id() + "/data")), v(field, "empty_segment"));
        assertRejected(create(withSource(p, root + "/" + p.id() + "/data/")), v(field, "empty_segment"));
        assertRejected(create(withSource(p, "roots/" + p.id() + "/data")), v(field, "not_absolute"));
        assertRejected(create(withSource(p, "/etc")), v(field, "outside_allowed_root"));
        assertRejected(create(withSource(p, e2e.outside().toString())), v(field, "outside_allowed_root"));
        assertRejected(create(withSource(p, root)), v(field, "outside_allowed_root"));
        assertRejected(create(withSource(p, root + "/" + p.id() + "/missing")), v(field, "not_found"));

        assertRejected(checkDisk(root + "/../outside"), v("paths[0]", "dot_segment"));
        assertRejected(checkDisk(root, "/etc"), v("paths[1]", "outside_allowed_root"));
    }

    @Test
    void symlinksOutOfTheAllowedRootAreRefusedAlsoByCheckDisk() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("link"));
        Path dir = e2e.root().resolve(p.id());
        String field = "mounts[0].source";
        Path absolute = Files.createSymbolicLink(dir.resolve("to-outside"), e2e.outside());
        Path relative = Files.createSymbolicLink(dir.resolve("up"), Path.of("../.."));
        Path toRoot = Files.createSymbolicLink(dir.resolve("to-root"), Path.of(".."));
        Path chain = Files.createSymbolicLink(dir.resolve("chain"), absolute.getFileName());
        Path toData = Files.createSymbolicLink(dir.resolve("to-data-dir"), e2e.dataDir());
        Path toEtc = Files.createSymbolicLink(dir.resolve("to-etc"), Path.of("/etc"));
        for (Path link : List.of(absolute, chain, toEtc)) {
            assertRejected(create(withSource(p, link.toString())), v(field, "outside_allowed_root"));
            assertRejected(checkDisk(link.toString()), v("paths[0]", "outside_allowed_root"));
        }
        // a bind source must lie strictly below the root; check-disk may ask about the root itself
        assertRejected(create(withSource(p, toRoot.toString())), v(field, "outside_allowed_root"));
        // ../.. from the instance folder is the run's folder, which holds the data directory; a link leading outside
        // is outside and nothing more, so a container's link tells nothing of what lies where it points
        for (Path link : List.of(relative, toData, Files.createSymbolicLink(dir.resolve("to-nothing"),
                e2e.dataDir().resolve("no-such-file")))) {
            assertRejected(create(withSource(p, link.toString())), v(field, "outside_allowed_root"));
            assertRejected(checkDisk(link.toString()), v("paths[0]", "outside_allowed_root"));
        }
        // a symlink that stays inside the root is fine
        Path inside = Files.createSymbolicLink(dir.resolve("inside"), Path.of("data"));
        Wire.Response ok = e2e.wire().post("/v1/check-disk", Json.write(Map.of("paths", List.of(inside.toString()))));
        assertEquals(200, ok.status(), ok::toString);
        Checks.assertNoLeak(e2e, ok, List.of());
    }

    @Test
    void aSourceSwappedForASymlinkAfterCreateIsCaughtBeforeStartAndRestart() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("swap"));
        String path = "/v1/instances/" + p.id();
        assertEquals(201, e2e.wire().post("/v1/instances", p.json()).status());
        Path data = Path.of((String) p.mount(0).get("source"));
        Path moved = data.resolveSibling("data-moved");
        try {
            Files.move(data, moved);
            Files.createSymbolicLink(data, e2e.outside());
            Map<String, Object> before = e2e.engine().inspect("dogama-" + p.id());
            Wire.Response start = unchanged(e2e, () -> e2e.wire().post(path + "/start"));
            assertRejectedWith(start, v("mounts[0].source", "outside_allowed_root"));
            Wire.Response restart = unchanged(e2e, () -> e2e.wire().post(path + "/restart"));
            assertRejectedWith(restart, v("mounts[0].source", "outside_allowed_root"));
            assertEquals(Json.object(before.get("State")).get("Status"),
                    Json.object(e2e.engine().inspect("dogama-" + p.id()).get("State")).get("Status"));
        } finally {
            Files.deleteIfExists(data);
            if (Files.exists(moved)) {
                Files.move(moved, data);
            }
            assertEquals(204, e2e.wire().delete(path).status());
        }
    }

    @Test
    void hostAndOtherForbiddenNetworksAreRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("net"));
        for (String net : List.of("host", "bridge", "none", "default", "container:" + "dogama-" + p.id(),
                "container:0123456789ab", e2e.unapprovedNetwork())) {
            assertRejected(create(p.with("networks", List.of(net))), v("networks[0]", "network_not_approved"));
        }
        assertRejected(create(p.with("networks", List.of(e2e.network(), "host"))), v("networks[1]", "network_not_approved"));
        assertRejectedWith(create(p.with("networks", List.of())), v("networks", "missing_network"));
        assertRejectedWith(create(p.with("networks", List.of(e2e.network(), e2e.network()))),
                v("networks[1]", "duplicate_network"));
    }

    @Test
    void privilegedFieldsAndCommandOverridesAreRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("priv"));
        for (String field : List.of("privileged", "devices", "networkMode", "pidMode", "ipcMode", "binds", "volumes",
                "securityOpt", "capDrop", "sysctls", "hostConfig", "HostConfig", "runtime", "cgroupParent")) {
            Object value = switch (field) {
                case "privileged" -> true;
                case "devices", "binds", "volumes", "securityOpt", "capDrop" -> List.of("/dev/sda");
                case "sysctls", "hostConfig", "HostConfig" -> Map.of("Privileged", true);
                default -> "host";
            };
            assertRejected(create(p.with(field, value)), v(field, "unknown_field"));
        }
        assertRejected(create(p.with("capAdd", List.of("SYS_ADMIN"))), v("capAdd", "cap_add_mismatch"));
        assertRejected(create(p.with("capAdd", List.of("CHOWN"))), v("capAdd", "cap_add_mismatch"));
        assertRejected(create(p.with("command", List.of("/bin/sh", "-c", "id"))), v("command", "command_mismatch"));
        assertRejected(create(p.with("command", List.of("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/"))),
                v("command", "command_mismatch"));
        assertRejected(create(p.with("entrypoint", List.of("/bin/sh"))), v("entrypoint", "entrypoint_mismatch"));
        assertRejected(create(p.with("user", "0:0")), v("user", "root_user_forbidden"));
        assertRejected(create(p.with("user", "root")), v("user", "user_not_numeric"));
        Plans.Plan nested = p.copy();
        nested.mount(0).put("propagation", "rshared");
        assertRejected(create(nested), v("mounts[0].propagation", "unknown_field"));
        Plans.Plan big = p.copy();
        big.map("resources").put("memoryBytes", 1L << 30);
        assertRejectedWith(create(big), v("resources.memoryBytes", "resource_out_of_bounds"));
        // the pinned command repeated exactly is fine (SPEC 8.2): not a rejection
        Wire.Response same = e2e.wire().post("/v1/instances", p.with("command", Plans.DEMO_COMMAND).json());
        assertEquals(201, same.status(), same::toString);
        assertEquals(204, e2e.wire().delete("/v1/instances/" + p.id()).status());
    }

    @Test
    void extraMountsAndTheDockerSocketAreRefused() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("mnt"));
        Path other = AgentUnderTest.mkdir0755(e2e.root().resolve(p.id()).resolve("other"));
        Plans.Plan second = p.copy();
        second.list("mounts").add(new LinkedHashMap<>(Map.of("source", other.toString(), "target", "/etc/extra",
                "readOnly", true)));
        assertRejected(create(second), v("mounts[1].target", "undeclared_mount"));
        Plans.Plan twice = p.copy();
        twice.list("mounts").add(new LinkedHashMap<>(Map.of("source", other.toString(), "target", "/data",
                "readOnly", false)));
        assertRejected(create(twice), v("mounts[1].target", "duplicate_mount"));
        assertRejectedWith(create(p.with("mounts", new ArrayList<>())), v("mounts", "missing_mount"));
        Plans.Plan ro = p.copy();
        ro.mount(0).put("readOnly", true);
        assertRejected(create(ro), v("mounts[0].readOnly", "read_only_mismatch"));

        String socket = e2e.engine().socketPath();
        // Lexically outside every root: the one answer any outside path gets, without looking at it (SPEC 8.3, 1.1).
        assertRejected(create(withSource(p, socket)), v("mounts[0].source", "outside_allowed_root"));
        assertRejected(create(withSource(p, Path.of(socket).getParent().toString())),
                v("mounts[0].source", "outside_allowed_root"));
        Path toSocket = Files.createSymbolicLink(e2e.root().resolve(p.id()).resolve("sock"), Path.of(socket));
        assertRejected(create(withSource(p, toSocket.toString())), v("mounts[0].source", "outside_allowed_root"));
        assertRejected(checkDisk(socket), v("paths[0]", "outside_allowed_root"));
    }

    @Test
    void aPathOutsideEveryRootGetsTheSameAnswerWhetherItExistsOrNot() {
        Plans.Plan p = e2e.plan(e2e.instanceId("leak"));
        String socket = e2e.engine().socketPath();
        for (String path : List.of("/etc/shadow", "/etc/nope", socket)) {
            assertRejected(checkDisk(path), v("paths[0]", "outside_allowed_root"));
            assertRejected(create(withSource(p, path)), v("mounts[0].source", "outside_allowed_root"));
        }
    }

    @Test
    void imageSubstitutionByReferenceIsRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("img"));
        String pinnedHex = e2e.pinnedImageId().substring("sha256:".length());
        for (String image : List.of("dogama/demo-http@sha256:" + pinnedHex, "dogama/demo-http:latest",
                "dogama/demo-http", "docker.io/dogama/demo-http:1", "127.0.0.1:5555/dogama/demo-http:1",
                e2e.pinnedImageId(), pinnedHex.substring(0, 12), "busybox:latest", "dogama/demo-http:1 ")) {
            assertRejected(create(p.with("image", image)), v("image", "image_mismatch"));
        }
        assertRejected(create(p.with("templateVersion", "1.0.1")), v("templateVersion", "unknown_template"));
        assertRejected(create(p.with("templateId", "minecraft-java")), v("templateId", "unknown_template"));
    }

    @Test
    void portsOutsideTheAdministratorsRangeOrAddressesOrTheTemplateAreRefused() {
        Plans.Plan p = e2e.plan(e2e.instanceId("port"));
        Plans.Plan low = p.copy();
        low.port(0).put("hostPort", e2e.hostPortMin() - 1);
        assertRejected(create(low), v("ports[0].hostPort", "port_out_of_range"));
        Plans.Plan high = p.copy();
        high.port(0).put("hostPort", e2e.hostPortMax() + 1);
        assertRejected(create(high), v("ports[0].hostPort", "port_out_of_range"));
        for (String ip : List.of("0.0.0.0", "::", "127.0.0.2", "localhost")) {
            Plans.Plan q = p.copy();
            q.port(0).put("hostIp", ip);
            assertRejected(create(q), v("ports[0].hostIp", "host_ip_not_approved"));
        }
        Plans.Plan cport = p.copy();
        cport.port(0).put("containerPort", 22);
        assertRejected(create(cport), v("ports[0].containerPort", "container_port_mismatch"));
        Plans.Plan udp = p.copy();
        udp.port(0).put("protocol", "udp");
        assertRejected(create(udp), v("ports[0].protocol", "protocol_mismatch"));
    }

    @Test
    void twoInstancesOnOneHostPortConflict() {
        Plans.Plan first = e2e.plan(e2e.instanceId("pc-a"));
        assertEquals(201, e2e.wire().post("/v1/instances", first.json()).status());
        try {
            Plans.Plan second = e2e.plan(e2e.instanceId("pc-b"));
            second.port(0).put("hostPort", first.hostPort());
            // the first is only created (not running): the registry still reserves its port
            assertProblem(create(second), 409, "port_conflict");
            assertEquals(200, e2e.wire().post("/v1/instances/" + first.id() + "/start").status());
            assertProblem(create(second), 409, "port_conflict");
            // a port conflict among other violations is one violation of plan_rejected
            assertRejected(create(second.with("networks", List.of("host"))), v("ports[0].hostPort", "port_conflict"),
                    v("networks[0]", "network_not_approved"));
            assertFalse(e2e.wire().get("/v1/instances").body().contains(second.id()));
        } finally {
            assertEquals(204, e2e.wire().delete("/v1/instances/" + first.id()).status());
        }
    }

    /**
     * Session 38's attack on a running agent: a registered instance's container (the test, writing inside that
     * instance's source as its container could) plants a link there to a folder nobody claims; another plan's
     * source reaches it through a link of its own. Neither its text nor its real path lies inside the registered
     * source, yet the registered container could re-point the link afterwards and free the folder still mounted.
     */
    @Test
    void aSourceReachedThroughALinkInsideAnotherInstancesSourceIsRefused() throws Exception {
        Plans.Plan neighbour = e2e.plan(e2e.instanceId("chain-z"));
        assertEquals(201, e2e.wire().post("/v1/instances", neighbour.json()).status());
        try {
            Path victim = e2e.instanceData(e2e.instanceId("chain-w"));
            Path planted = Files.createDirectories(Path.of((String) neighbour.mount(0).get("source")).resolve("d"));
            Path l2 = Files.createSymbolicLink(planted.resolve("l2"), victim);
            Plans.Plan p = e2e.plan(e2e.instanceId("chain-x"));
            Path l1 = Files.createSymbolicLink(Path.of((String) p.mount(0).get("source")).resolve("l1"), l2);
            assertRejected(create(withSource(p, l1.toString())), v("mounts[0].source", "source_overlaps_instance"));
            assertFalse(e2e.wire().get("/v1/instances").body().contains(p.id()));
        } finally {
            assertEquals(204, e2e.wire().delete("/v1/instances/" + neighbour.id()).status());
        }
    }

    @Test
    void everyViolationIsReportedAtOnce() {
        Plans.Plan p = e2e.plan(e2e.instanceId("all"));
        Plans.Plan bad = p.with("networks", List.of("host")).with("capAdd", List.of("SYS_ADMIN"))
                .with("image", "busybox:latest").with("user", "0:0");
        bad.map("labels").put("io.dogama.managed", "true");
        bad.mount(0).put("source", "/etc");
        bad.port(0).put("hostIp", "0.0.0.0");
        assertRejected(create(bad), v("networks[0]", "network_not_approved"), v("capAdd", "cap_add_mismatch"),
                v("image", "image_mismatch"), v("labels.io.dogama.managed", "reserved_label"),
                v("mounts[0].source", "outside_allowed_root"), v("ports[0].hostIp", "host_ip_not_approved"),
                v("user", "root_user_forbidden"));
        // the closed schema is checked first: unknown fields are reported together, before the values
        assertRejected(create(bad.with("privileged", true).with("devices", List.of("/dev/sda"))),
                v("privileged", "unknown_field"), v("devices", "unknown_field"));
    }
}
