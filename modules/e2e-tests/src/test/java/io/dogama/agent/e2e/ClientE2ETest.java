package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.client.DiskSpace;
import io.dogama.agent.client.DogamaClient;
import io.dogama.agent.client.DogamaProblemException;
import io.dogama.agent.client.Health;
import io.dogama.agent.client.Instance;
import io.dogama.agent.client.InstanceState;
import io.dogama.agent.client.Mount;
import io.dogama.agent.client.Plan;
import io.dogama.agent.client.PortBinding;
import io.dogama.agent.client.PortCheck;
import io.dogama.agent.client.Problem;
import io.dogama.agent.client.ProblemCode;
import io.dogama.agent.client.Protocol;
import io.dogama.agent.client.Stats;
import io.dogama.agent.client.Violation;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The typed client (modules/client) against the real agent from the runtime image: every method, its
 * problems, the opt-in stale retry, and interplay with scripts/dogama-curl (an independent signer). Runs
 * on the class path, which shows the client works there too.
 */
class ClientE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    @Test
    void everyTypedMethodDrivesTheRealAgent() throws Exception {
        DogamaClient agent = e2e.client();
        Plans.Plan p = e2e.plan(e2e.instanceId("client"));
        String id = p.id();
        Plan plan = Plan.fromJson(p.json());

        assertEquals(new Health("ok"), agent.health());
        List<DiskSpace> disk = agent.checkDisk(List.of(e2e.instanceData(id).toString()));
        assertEquals(e2e.instanceData(id).toString(), disk.getFirst().path());
        assertTrue(disk.getFirst().totalBytes() > 0);
        PortBinding binding = new PortBinding("127.0.0.1", p.hostPort(), Protocol.TCP);
        assertEquals(List.of(new PortCheck(binding, true)), agent.checkPorts(List.of(binding)));

        Instance created = agent.create(plan);
        try {
            assertEquals(id, created.instanceId());
            assertEquals(InstanceState.CREATED, created.state());
            assertEquals(0, created.revision());
            assertEquals(p.digest(), created.planDigest(), "the digest of SPEC 6, computed independently");
            assertEquals("created", created.container().status());
            assertEquals(created, agent.create(plan), "an identical create is idempotent");
            assertEquals(created, agent.inspect(id));
            assertTrue(agent.list().contains(created.summary()), agent.list()::toString);
            assertEquals(List.of(new PortCheck(binding, false)), agent.checkPorts(List.of(binding)));

            Instance running = agent.start(id);
            assertEquals(InstanceState.RUNNING, running.state());
            assertEquals("running", running.container().status());
            assertNotNull(running.container().startedAt());
            assertEquals("hello from " + id + "\n", RoutesE2ETest.fetch(p.hostPort()));
            Stats stats = agent.stats(id);
            assertEquals(Plans.MEMORY, stats.memoryLimitBytes());
            assertTrue(stats.pids() >= 1, stats::toString);

            Instance stopped = agent.stop(id, Duration.ofSeconds(5));
            assertEquals(InstanceState.STOPPED, stopped.state());
            assertEquals("exited", stopped.container().status());
            assertEquals(InstanceState.RUNNING, agent.restart(id, Duration.ofSeconds(1)).state());

            Plan next = plan.toBuilder().env("GREETING", "replaced").build();
            Instance replaced = agent.replace(id, next, 0);
            assertEquals(1, replaced.revision());
            assertEquals(InstanceState.RUNNING, replaced.state());
            DogamaProblemException conflict = assertThrows(DogamaProblemException.class, () -> agent.replace(id, plan, 0));
            assertEquals(ProblemCode.REVISION_CONFLICT, conflict.code());
            assertEquals(new Problem.Known(ProblemCode.REVISION_CONFLICT, 409, "The expected revision is not the current revision."),
                    conflict.problem());

            String other = e2e.instanceId("client-bad");
            Plan outside = plan.toBuilder().instanceId(other).mounts(List.of()).mount(new Mount("/etc", "/data", false))
                    .build();
            DogamaProblemException rejected = assertThrows(DogamaProblemException.class, () -> agent.create(outside));
            Problem.PlanRejected r = assertInstanceOf(Problem.PlanRejected.class, rejected.problem());
            assertTrue(r.violations().contains(new Violation("mounts[0].source", "outside_allowed_root")),
                    r.violations()::toString);
        } finally {
            agent.delete(id);
        }
        assertEquals(ProblemCode.UNKNOWN_INSTANCE,
                assertThrows(DogamaProblemException.class, () -> agent.inspect(id)).code());
        assertEquals(ProblemCode.UNKNOWN_INSTANCE,
                assertThrows(DogamaProblemException.class, () -> agent.delete(id)).code());
        assertFalse(agent.list().stream().anyMatch(s -> s.instanceId().equals(id)));
    }

    /** A clock 45 s behind for its first reading only: the agent refuses that request as stale. */
    private static final class SkewedOnce extends Clock {
        private final AtomicInteger readings = new AtomicInteger();

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            Instant now = Instant.now();
            return readings.getAndIncrement() == 0 ? now.minusSeconds(45) : now;
        }
    }

    @Test
    void aStaleRequestIsRetriedOnlyWhenAskedAndThenActsOnce() {
        Plans.Plan p = e2e.plan(e2e.instanceId("stale"));
        Plan plan = Plan.fromJson(p.json());
        URI uri = URI.create("http://127.0.0.1:" + e2e.wire().port());
        try (DogamaClient plain = DogamaClient.builder().uri(uri).secret(secretLine()).clock(new SkewedOnce()).build()) {
            assertEquals(ProblemCode.STALE_REQUEST,
                    assertThrows(DogamaProblemException.class, () -> plain.create(plan)).code());
        }
        assertEquals(List.of(), e2e.engine().containersOf(p.id()), "a stale request changes nothing");
        try (DogamaClient retrying = DogamaClient.builder().uri(uri).secret(secretLine()).clock(new SkewedOnce())
                .retryStaleRequests(true).build()) {
            assertEquals(InstanceState.CREATED, retrying.create(plan).state());
            assertEquals(1, e2e.engine().containersOf(p.id()).size(), "created exactly once");
            retrying.delete(p.id());
        }
    }

    @Test
    void dogamaCurlAndTheClientDriveTheSameInstance() throws Exception {
        Plans.Plan p = e2e.plan(e2e.instanceId("curl"));
        String path = "/v1/instances/" + p.id();
        assertEquals(0, curl("POST", "/v1/instances", p.json()).exit());
        assertEquals(InstanceState.CREATED, e2e.client().inspect(p.id()).state());
        e2e.client().start(p.id());
        Curl inspected = curl("GET", path, null);
        assertEquals("RUNNING", Json.parse(inspected.out()).get("state"), inspected::toString);
        assertEquals(0, curl("DELETE", path, null).exit());
        assertEquals(ProblemCode.UNKNOWN_INSTANCE,
                assertThrows(DogamaProblemException.class, () -> e2e.client().inspect(p.id())).code());
        Curl gone = curl("GET", path, null);
        assertEquals(1, gone.exit(), gone::toString);
        assertEquals("unknown_instance", Json.parse(gone.out()).get("code"));
    }

    private static String secretLine() {
        try {
            return java.nio.file.Files.readAllLines(e2e.secretFile(), StandardCharsets.US_ASCII).getFirst();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private record Curl(int exit, String out) {
    }

    private static Curl curl(String method, String path, String body) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash",
                RepoLayout.root().resolve("scripts/dogama-curl").toString(), method, path));
        if (body != null) {
            cmd.add(body);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("DOGAMA_"));
        pb.environment().putAll(Map.of("DOGAMA_SECRET_FILE", e2e.secretFile().toString(),
                "DOGAMA_URL", "http://127.0.0.1:" + e2e.wire().port()));
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        // The answer goes to a file: draining a pipe to its end would wait for a hung curl without a bound.
        java.nio.file.Path log = java.nio.file.Files.createTempFile("dogama-curl-", ".out");
        try {
            pb.redirectOutput(log.toFile());
            Process proc = pb.start();
            proc.getOutputStream().close();
            if (!proc.waitFor(60, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                fail("dogama-curl hangs: " + String.join(" ", cmd) + " did not finish in 60 s:\n"
                        + new String(java.nio.file.Files.readAllBytes(log), StandardCharsets.UTF_8));
            }
            String out = new String(java.nio.file.Files.readAllBytes(log), StandardCharsets.UTF_8);
            return new Curl(proc.exitValue(), out);
        } finally {
            java.nio.file.Files.deleteIfExists(log);
        }
    }
}
