package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertNoLeak;
import static io.dogama.agent.e2e.Checks.assertProblem;
import static io.dogama.agent.e2e.Checks.unchanged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The success path of every route of SPEC section 2, through signed HTTP to the agent from the
 * runtime image, checked against what the engine reports.
 */
class RoutesE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    private static final Set<String> INSTANCE_KEYS =
            Set.of("instanceId", "templateId", "templateVersion", "planDigest", "revision", "state", "container");
    private static final Set<String> STATS_KEYS = Set.of("cpuPercent", "memoryBytes", "memoryLimitBytes", "pids",
            "networkRxBytes", "networkTxBytes", "blockReadBytes", "blockWriteBytes");

    @Test
    void healthIsOk() {
        Wire.Response r = e2e.wire().get("/v1/health");
        assertEquals(200, r.status(), r::toString);
        assertTrue(r.contentType().startsWith("application/json"), r::toString);
        assertEquals(Map.of("status", "ok"), r.json());
    }

    @Test
    void checkDiskReportsCapacityInRequestOrderWithTheCallersPaths() {
        String id = e2e.instanceId("disk");
        Path data = e2e.instanceData(id);
        List<String> paths = List.of(data.toString(), e2e.root().toString());
        Wire.Response r = e2e.wire().post("/v1/check-disk", Json.write(Map.of("paths", paths)));
        assertEquals(200, r.status(), r::toString);
        List<Object> out = Json.array(r.json().get("paths"));
        assertEquals(2, out.size(), r::toString);
        for (int i = 0; i < 2; i++) {
            Map<String, Object> p = Json.object(out.get(i));
            assertEquals(Set.of("path", "totalBytes", "usableBytes"), p.keySet());
            assertEquals(paths.get(i), p.get("path"), "request order and the caller's spelling");
            long total = Json.number(p.get("totalBytes"));
            long usable = Json.number(p.get("usableBytes"));
            assertTrue(total > 0 && usable >= 0 && usable <= total, r::toString);
        }
        assertNoLeak(e2e, r, List.of());
    }

    @Test
    void listShowsRegisteredInstancesOnlySortedByIdWithoutContainerDetails() {
        Plans.Plan b = e2e.plan(e2e.instanceId("list-b"));
        Plans.Plan a = e2e.plan(e2e.instanceId("list-a"));
        assertEquals(201, e2e.wire().post("/v1/instances", b.json()).status());
        assertEquals(201, e2e.wire().post("/v1/instances", a.json()).status());
        try {
            Wire.Response r = e2e.wire().get("/v1/instances");
            assertEquals(200, r.status(), r::toString);
            assertEquals(Set.of("instances"), r.json().keySet());
            List<String> ids = new ArrayList<>();
            for (Object o : Json.array(r.json().get("instances"))) {
                Map<String, Object> s = Json.object(o);
                assertEquals(Set.of("instanceId", "templateId", "templateVersion", "planDigest", "revision", "state"),
                        s.keySet(), "a summary is the instance without container");
                ids.add((String) s.get("instanceId"));
            }
            List<String> sorted = new ArrayList<>(ids);
            sorted.sort(null);
            assertEquals(sorted, ids, "sorted by instanceId");
            assertTrue(ids.indexOf(a.id()) >= 0 && ids.indexOf(b.id()) == ids.indexOf(a.id()) + 1, ids::toString);
            for (String id : ids) {
                assertTrue(id.contains(e2e.token()), "only this agent's registrations: " + id);
            }
            assertNoLeak(e2e, r, e2e.engine().containersOf(e2e.token()));
        } finally {
            assertEquals(204, e2e.wire().delete("/v1/instances/" + a.id()).status());
            assertEquals(204, e2e.wire().delete("/v1/instances/" + b.id()).status());
        }
    }

    @Test
    void createInspectStartStatsStopRestartDeleteDriveTheHardenedContainer() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("life"));
        String id = plan.id();
        String path = "/v1/instances/" + id;
        String container = "dogama-" + id;
        int port = plan.hostPort();
        Map<String, Object> binding = Map.of("hostIp", "127.0.0.1", "hostPort", port, "protocol", "tcp");
        String checkPorts = Json.write(Map.of("bindings", List.of(binding)));

        // check-ports before: free
        Wire.Response free = e2e.wire().post("/v1/check-ports", checkPorts);
        assertEquals(200, free.status(), free::toString);
        assertEquals(Map.of("bindings", List.of(withAvailable(binding, true))), free.json());

        // create: 201, CREATED, the container exists with the fixed baseline
        Wire.Response created = e2e.wire().post("/v1/instances", plan.json());
        assertEquals(201, created.status(), created::toString);
        Map<String, Object> inst = assertInstance(created, id, "CREATED", "created", 0);
        assertEquals(plan.digest(), inst.get("planDigest"), "the digest of SPEC 6, computed independently");
        Map<String, Object> c = e2e.engine().inspect(container);
        assertNotNull(c, "no container " + container);
        String containerId = (String) c.get("Id");
        assertHardened(c, plan);
        assertNoLeak(e2e, created, List.of(containerId));

        // check-ports after: taken by a registered instance, nothing said about who
        Wire.Response taken = e2e.wire().post("/v1/check-ports", checkPorts);
        assertEquals(Map.of("bindings", List.of(withAvailable(binding, false))), taken.json());
        assertNoLeak(e2e, taken, List.of(containerId));

        // inspect
        Wire.Response inspected = e2e.wire().get(path);
        assertEquals(200, inspected.status(), inspected::toString);
        assertEquals(created.json(), inspected.json());

        // start, and the demo serves the bind-mounted file on the published port
        Wire.Response started = e2e.wire().post(path + "/start");
        assertEquals(200, started.status(), started::toString);
        Map<String, Object> running = assertInstance(started, id, "RUNNING", "running", 0);
        assertTrue(Json.object(running.get("container")).get("startedAt") instanceof String, started::toString);
        assertEquals("hello from " + id + "\n", fetch(port));
        Map<String, Object> afterStart = state(container);
        assertEquals("running", afterStart.get("Status"));
        assertNoLeak(e2e, started, List.of(containerId));

        // start again: success, the container was not restarted
        Wire.Response again = unchanged(e2e, () -> e2e.wire().post(path + "/start"));
        assertEquals(200, again.status(), again::toString);
        assertInstance(again, id, "RUNNING", "running", 0);

        // stats of the running container
        Wire.Response stats = e2e.wire().get(path + "/stats");
        assertEquals(200, stats.status(), stats::toString);
        Map<String, Object> s = stats.json();
        assertEquals(STATS_KEYS, s.keySet());
        assertEquals(Plans.MEMORY, Json.number(s.get("memoryLimitBytes")), "the plan's memory limit");
        assertTrue(Json.number(s.get("pids")) >= 1, "init and httpd run: " + s);
        assertTrue(Json.number(s.get("memoryBytes")) > 0, s::toString);
        assertTrue(((Number) s.get("cpuPercent")).doubleValue() >= 0, s::toString);
        assertNoLeak(e2e, stats, List.of(containerId));

        // stop with a timeout
        Wire.Response stopped = e2e.wire().post(path + "/stop", "{\"timeoutSeconds\":5}");
        assertEquals(200, stopped.status(), stopped::toString);
        assertInstance(stopped, id, "STOPPED", "exited", 0);
        assertEquals("exited", state(container).get("Status"));

        // stop again: success, nothing touched
        Wire.Response stoppedAgain = unchanged(e2e, () -> e2e.wire().post(path + "/stop", "{\"timeoutSeconds\":5}"));
        assertEquals(200, stoppedAgain.status(), stoppedAgain::toString);
        assertInstance(stoppedAgain, id, "STOPPED", "exited", 0);

        // restart from stopped, then restart while running: a new start each time
        Wire.Response restarted = e2e.wire().post(path + "/restart", "{\"timeoutSeconds\":5}");
        assertEquals(200, restarted.status(), restarted::toString);
        assertInstance(restarted, id, "RUNNING", "running", 0);
        String firstStart = (String) state(container).get("StartedAt");
        assertNotEquals(afterStart.get("StartedAt"), firstStart);
        Wire.Response restartedRunning = e2e.wire().post(path + "/restart");
        assertEquals(200, restartedRunning.status(), restartedRunning::toString);
        assertInstance(restartedRunning, id, "RUNNING", "running", 0);
        assertNotEquals(firstStart, state(container).get("StartedAt"), "restart of a running container starts it anew");
        assertEquals("hello from " + id + "\n", fetch(port));

        // stop without a body (default timeout), then delete
        Wire.Response stopDefault = e2e.wire().post(path + "/stop");
        assertEquals(200, stopDefault.status(), stopDefault::toString);
        assertInstance(stopDefault, id, "STOPPED", "exited", 0);

        Path index = Path.of(plan.mount(0).get("source").toString(), "index.html");
        Wire.Response deleted = e2e.wire().delete(path);
        assertEquals(204, deleted.status(), deleted::toString);
        assertEquals("", deleted.body());
        assertNull(e2e.engine().inspect(containerId), "the container is removed");
        assertTrue(Files.isRegularFile(index), "host data is kept");
        assertEquals("hello from " + id + "\n", Files.readString(index));
        assertProblem(e2e.wire().get(path), 404, "unknown_instance");
        Wire.Response list = e2e.wire().get("/v1/instances");
        assertFalse(list.body().contains(id), "the registration ended: " + list);
        Wire.Response freeAgain = e2e.wire().post("/v1/check-ports", checkPorts);
        assertEquals(Map.of("bindings", List.of(withAvailable(binding, true))), freeAgain.json());
    }

    @Test
    void anIdenticalCreateIsIdempotentAndADifferentPlanUnderTheSameIdIsRefused() {
        Plans.Plan plan = e2e.plan(e2e.instanceId("idem"));
        Wire.Response first = e2e.wire().post("/v1/instances", plan.json());
        assertEquals(201, first.status(), first::toString);
        try {
            Wire.Response second = unchanged(e2e, () -> e2e.wire().post("/v1/instances", plan.json()));
            assertEquals(200, second.status(), second::toString);
            assertEquals(first.json(), second.json());
            Plans.Plan other = plan.copy();
            other.map("env").put("GREETING", "changed");
            Wire.Response conflict = unchanged(e2e, () -> e2e.wire().post("/v1/instances", other.json()));
            assertProblem(conflict, 409, "instance_exists");
        } finally {
            assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
        }
    }

    @Test
    void replaceWithTheExpectedRevisionSwapsTheContainerAndAWrongRevisionChangesNothing() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("repl"));
        String path = "/v1/instances/" + plan.id();
        String container = "dogama-" + plan.id();
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        try {
            assertEquals(200, e2e.wire().post(path + "/start").status());
            String oldId = (String) e2e.engine().inspect(container).get("Id");

            Plans.Plan next = plan.copy();
            next.map("env").put("GREETING", "replaced");
            next.map("labels").put("owner", "e2e-replaced");
            Wire.Response wrong = unchanged(e2e, () -> e2e.wire().put(path,
                    "{\"plan\":" + next.json() + ",\"expectedRevision\":7}"));
            assertProblem(wrong, 409, "revision_conflict");

            Wire.Response replaced = e2e.wire().put(path, "{\"plan\":" + next.json() + ",\"expectedRevision\":0}");
            assertEquals(200, replaced.status(), replaced::toString);
            Map<String, Object> inst = assertInstance(replaced, plan.id(), "RUNNING", "running", 1);
            assertEquals(next.digest(), inst.get("planDigest"));
            Map<String, Object> c = e2e.engine().inspect(container);
            assertNotEquals(oldId, c.get("Id"), "a new container");
            assertNull(e2e.engine().inspect(oldId), "the old container is removed");
            assertNull(e2e.engine().inspect(container + "-r0"), "no renamed prior container is left");
            assertTrue(Json.array(Json.object(c.get("Config")).get("Env")).contains("GREETING=replaced"));
            assertHardened(c, next);
            assertEquals("hello from " + plan.id() + "\n", fetch(plan.hostPort()), "same data, same port");
            assertNoLeak(e2e, replaced, List.of(oldId, (String) c.get("Id")));

            // the revision moved on: 0 is now the wrong one
            Wire.Response stale = unchanged(e2e, () -> e2e.wire().put(path,
                    "{\"plan\":" + plan.json() + ",\"expectedRevision\":0}"));
            assertProblem(stale, 409, "revision_conflict");
        } finally {
            assertEquals(204, e2e.wire().delete(path).status());
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Map<String, Object> withAvailable(Map<String, Object> binding, boolean available) {
        Map<String, Object> m = new java.util.HashMap<>(binding);
        m.put("available", available);
        return m;
    }

    static Map<String, Object> assertInstance(Wire.Response r, String id, String state, String status, int revision) {
        Map<String, Object> m = r.json();
        assertEquals(INSTANCE_KEYS, m.keySet(), r::toString);
        assertEquals(id, m.get("instanceId"));
        assertEquals("demo-http", m.get("templateId"));
        assertEquals("1.0.0", m.get("templateVersion"));
        assertTrue(((String) m.get("planDigest")).matches("^sha256:[0-9a-f]{64}$"), r::toString);
        assertEquals(revision, Json.number(m.get("revision")), r::toString);
        assertEquals(state, m.get("state"), r::toString);
        Map<String, Object> c = Json.object(m.get("container"));
        assertTrue(Set.of("status", "startedAt", "exitCode").containsAll(c.keySet()), r::toString);
        assertEquals(status, c.get("status"), r::toString);
        return m;
    }

    private static Map<String, Object> state(String container) {
        return Json.object(e2e.engine().inspect(container).get("State"));
    }

    /** The fixed baseline of SPEC 8 and the plan's values, as the engine reports the container. */
    @SuppressWarnings("unchecked")
    static void assertHardened(Map<String, Object> c, Plans.Plan plan) {
        String id = plan.id();
        assertEquals("/dogama-" + id, c.get("Name"));
        assertEquals(e2e.pinnedImageId(), c.get("Image"), "the pinned image");
        Map<String, Object> config = Json.object(c.get("Config"));
        Map<String, Object> labels = Json.object(config.get("Labels"));
        Map<String, Object> expectedLabels = new java.util.HashMap<>((Map<String, Object>) plan.tree.get("labels"));
        expectedLabels.put("io.dogama.managed", "true");
        expectedLabels.put("io.dogama.instance-id", id);
        expectedLabels.put("io.dogama.template-id", "demo-http");
        expectedLabels.put("io.dogama.template-version", "1.0.0");
        expectedLabels.put("io.dogama.plan-digest", plan.digest());
        assertEquals(expectedLabels, labels);
        assertEquals("65534:65534", config.get("User"));
        assertEquals(Plans.DEMO_COMMAND, config.get("Cmd"));
        assertNull(config.get("Entrypoint"), "the image's (no) entrypoint");

        Map<String, Object> h = Json.object(c.get("HostConfig"));
        assertEquals(false, h.get("Privileged"));
        assertEquals(true, h.get("Init"));
        assertEquals(List.of("ALL"), h.get("CapDrop"));
        assertTrue(h.get("CapAdd") == null || Json.array(h.get("CapAdd")).isEmpty(), "no capAdd: " + h.get("CapAdd"));
        assertEquals(List.of("no-new-privileges:true"), h.get("SecurityOpt"));
        assertEquals(true, h.get("ReadonlyRootfs"));
        assertEquals("private", h.get("IpcMode"));
        assertEquals("private", h.get("CgroupnsMode"));
        assertEquals("", h.get("PidMode"));
        assertEquals("", h.get("UTSMode"));
        assertEquals("", h.get("UsernsMode"));
        assertEquals(e2e.network(), h.get("NetworkMode"));
        assertEquals(Plans.MEMORY, Json.number(h.get("Memory")));
        assertEquals(Plans.MEMORY, Json.number(h.get("MemorySwap")));
        assertEquals(Plans.NANO_CPUS, Json.number(h.get("NanoCpus")));
        assertEquals(Plans.PIDS, Json.number(h.get("PidsLimit")));
        assertEquals(false, h.get("PublishAllPorts"));
        for (String none : List.of("Binds", "Devices", "DeviceRequests", "DeviceCgroupRules", "VolumesFrom", "Links",
                "ExtraHosts", "GroupAdd", "Ulimits", "Dns", "DnsSearch", "DnsOptions")) {
            Object v = h.get(none);
            assertTrue(v == null || (v instanceof List<?> l && l.isEmpty()), none + " = " + v);
        }
        assertTrue(h.get("Sysctls") == null || Json.object(h.get("Sysctls")).isEmpty(), "Sysctls");
        assertTrue(h.get("OomKillDisable") == null || Boolean.FALSE.equals(h.get("OomKillDisable")), "OomKillDisable");
        assertEquals("", h.getOrDefault("CgroupParent", ""));
        assertEquals(Map.of("Name", "no", "MaximumRetryCount", 0), Json.object(h.get("RestartPolicy")));
        assertEquals("json-file", Json.object(h.get("LogConfig")).get("Type"));
        assertEquals(Map.of("/tmp", "rw,noexec,nosuid,nodev,size=16777216"), h.get("Tmpfs"));
        assertEquals(Map.of("8080/tcp", List.of(Map.of("HostIp", "127.0.0.1", "HostPort",
                Integer.toString(plan.hostPort())))), h.get("PortBindings"));

        List<Object> mounts = Json.array(c.get("Mounts"));
        assertEquals(1, mounts.size(), mounts::toString);
        Map<String, Object> m = Json.object(mounts.getFirst());
        assertEquals("bind", m.get("Type"));
        assertEquals("/data", m.get("Destination"));
        assertEquals(true, m.get("RW"));
        assertEquals("rprivate", m.get("Propagation"));
        assertEquals(e2e.realRoot().resolve(id).resolve("data").toString(), m.get("Source"),
                "Docker is given the source with every symlink resolved");
        Map<String, Object> nets = Json.object(Json.object(c.get("NetworkSettings")).get("Networks"));
        assertEquals(Set.of(e2e.network()), nets.keySet());
    }

    /** GETs the demo's page on the published port; bounded, as httpd may need a moment after start. */
    static String fetch(int port) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                .timeout(Duration.ofSeconds(3)).build();
        // connection refused until httpd listens: an IOException is looked at again, any answer is final
        HttpResponse<String> r = Poll.until(Duration.ofSeconds(15), Duration.ofMillis(100),
                "the demo on port " + port + " answering", () -> Optional.of(http.send(get,
                        HttpResponse.BodyHandlers.ofString())));
        assertEquals(200, r.statusCode(), "the demo answered " + r.statusCode() + ": " + r.body());
        return r.body();
    }
}
