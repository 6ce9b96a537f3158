package io.dogama.agent.docker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.docker.HostConfigView.PortBindingView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** JSON to typed views, the CPU formula of the docker CLI, and version negotiation, without an engine. */
class MappingTest {
    static Tree tree(String json) throws DockerProtocolException {
        return Tree.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    static String stats(String id, long total, long system, String pre) {
        return "{\"id\":\"" + id + "\",\"cpu_stats\":{\"cpu_usage\":{\"total_usage\":" + total
                + ",\"percpu_usage\":[1,2]},\"system_cpu_usage\":" + system + ",\"online_cpus\":2},"
                + "\"precpu_stats\":" + pre + ","
                + "\"memory_stats\":{\"usage\":3207168,\"limit\":67108864,\"stats\":{\"total_inactive_file\":2404352}},"
                + "\"pids_stats\":{\"current\":2},"
                + "\"networks\":{\"eth0\":{\"rx_bytes\":646,\"tx_bytes\":10},\"eth1\":{\"rx_bytes\":4,\"tx_bytes\":5}},"
                + "\"blkio_stats\":{\"io_service_bytes_recursive\":[{\"major\":8,\"minor\":0,\"op\":\"Read\",\"value\":100},"
                + "{\"op\":\"Write\",\"value\":7},{\"op\":\"Total\",\"value\":107},{\"op\":\"read\",\"value\":1}]}}";
    }

    @Test
    void oneShotStatsUseThePreviousSampleOfTheSameContainer() throws Exception {
        Stats s = new Stats();
        String empty = "{\"cpu_usage\":{\"total_usage\":0}}";
        ContainerStats first = s.compute("a", tree(stats("a", 1_000_000, 100_000_000, empty)));
        assertEquals(new ContainerStats(0.0, 3207168 - 2404352, 67108864, 2, 650, 15, 101, 7), first);
        // 10 ms of container CPU over 100 ms of host CPU (2 CPUs): 10 % of all, 20 % of one CPU... x 2 CPUs.
        ContainerStats second = s.compute("a", tree(stats("a", 11_000_000, 200_000_000, empty)));
        assertEquals(20.0, second.cpuPercent(), 1e-9);
        // Another container has no sample yet.
        assertEquals(0.0, s.compute("b", tree(stats("b", 11_000_000, 200_000_000, empty))).cpuPercent());
    }

    @Test
    void aPreviousSampleTheEngineSuppliesWins() throws Exception {
        String pre = "{\"cpu_usage\":{\"total_usage\":1000000},\"system_cpu_usage\":100000000}";
        assertEquals(40.0, new Stats().compute("a", tree(stats("a", 21_000_000, 200_000_000, pre))).cpuPercent(), 1e-9);
    }

    @Test
    void anAnswerAboutAnotherContainerIsRefusedAndNeverRemembered() throws Exception {
        Stats s = new Stats();
        String empty = "{\"cpu_usage\":{\"total_usage\":0}}";
        String first = stats("b", 1_000_000, 100_000_000, empty);
        assertThrows(DockerProtocolException.class, () -> s.compute("a", tree(first)));
        // Nothing of b's answer was kept: a's first own answer has no baseline.
        s.compute("b", tree(stats("b", 1_000_000, 100_000_000, empty)));
        String second = stats("b", 11_000_000, 200_000_000, empty);
        assertThrows(DockerProtocolException.class, () -> s.compute("a", tree(second)));
        assertEquals(0.0, s.compute("a", tree(stats("a", 11_000_000, 200_000_000, empty))).cpuPercent());
    }

    @Test
    void cpuPercentIsZeroWithoutProgress() {
        assertEquals(0.0, Stats.cpuPercent(null, new Stats.Sample(5, 5), 2));
        assertEquals(0.0, Stats.cpuPercent(new Stats.Sample(5, 5), new Stats.Sample(5, 9), 2));
        assertEquals(0.0, Stats.cpuPercent(new Stats.Sample(1, 5), new Stats.Sample(5, 5), 2));
        assertEquals(0.0, Stats.cpuPercent(new Stats.Sample(1, 1), new Stats.Sample(5, 5), 0));
    }

    @Test
    void aStoppedContainersStatsAreZeros() throws Exception {
        assertEquals(new ContainerStats(0, 0, 0, 0, 0, 0, 0, 0),
                new Stats().compute("x", tree("{\"id\":\"x\",\"cpu_stats\":{},\"precpu_stats\":{},\"memory_stats\":{},"
                        + "\"pids_stats\":{},\"blkio_stats\":{\"io_service_bytes_recursive\":null}}")));
    }

    @Test
    void portBindingsAreTypedAndFailClosed() throws Exception {
        assertEquals(List.of(new PortBindingView(8080, new HostPort("127.0.0.1", 20001, Protocol.TCP)),
                new PortBindingView(53, new HostPort("0.0.0.0", 20053, Protocol.UDP))),
                Views.hostConfig(tree("{\"PortBindings\":{\"8080/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"20001\"}],"
                        + "\"53/udp\":[{\"HostIp\":\"0.0.0.0\",\"HostPort\":\"20053\"}],\"9/tcp\":null}}")).portBindings());
        // An engine-chosen port or SCTP cannot be represented: the view refuses rather than drops it.
        assertThrows(DockerProtocolException.class, () -> Views.hostConfig(
                tree("{\"PortBindings\":{\"8080/tcp\":[{\"HostIp\":\"\",\"HostPort\":\"\"}]}}")));
        assertThrows(DockerProtocolException.class, () -> Views.hostConfig(
                tree("{\"PortBindings\":{\"8080/sctp\":[{\"HostIp\":\"\",\"HostPort\":\"1\"}]}}")));
        assertThrows(DockerProtocolException.class, () -> Views.hostConfig(
                tree("{\"PortBindings\":{\"8080/tcp\":[{\"HostIp\":\"\",\"HostPort\":\"70000\"}]}}")));
    }

    @Test
    void stateKeepsStartAndExitOnlyWhenMeaningful() throws Exception {
        var created = Views.state(tree("{\"Status\":\"created\",\"Running\":false,\"ExitCode\":0,"
                + "\"StartedAt\":\"0001-01-01T00:00:00Z\"}"));
        assertEquals(Optional.empty(), created.startedAt());
        assertEquals(Optional.empty(), created.exitCode());
        var exited = Views.state(tree("{\"Status\":\"exited\",\"Running\":false,\"ExitCode\":137,"
                + "\"StartedAt\":\"2026-12-01T20:06:04.5Z\"}"));
        assertEquals(Optional.of("2026-12-01T20:06:04.5Z"), exited.startedAt());
        assertEquals(Optional.of(137), exited.exitCode());
    }

    /** Engine text reaches an instance's answer and the reconciliation's log only as the engine's own words. */
    @Test
    void aStatusOrStartTimeThatIsNotTheEnginesOwnIsAProtocolError() throws Exception {
        assertThrows(DockerProtocolException.class, () -> Views.state(tree("{\"Status\":\"EVIL-MARKER\\r\\nx\","
                + "\"Running\":true}")));
        assertThrows(DockerProtocolException.class, () -> Views.state(tree("{\"Status\":\"missing\"}")));
        assertThrows(DockerProtocolException.class, () -> Views.state(tree("{\"Status\":\"running\","
                + "\"StartedAt\":\"EVIL-MARKER\"}")));
        assertThrows(DockerProtocolException.class, () -> Views.state(tree("{\"Status\":\"running\","
                + "\"StartedAt\":\"2026-12-01T20:06:04Z\\nSEVERE: forged\"}")));
        for (String status : Views.STATUSES) {
            assertEquals(status, Views.state(tree("{\"Status\":\"" + status + "\","
                    + "\"StartedAt\":\"2026-12-01T20:06:04.123456789+01:00\"}")).status());
        }
    }

    @Test
    void anImageVolumeThatIsNoContainerPathIsAProtocolError() throws Exception {
        assertThrows(DockerProtocolException.class, () -> Views.image(tree("{\"Id\":\"sha256:" + "a".repeat(64)
                + "\",\"Config\":{\"Volumes\":{\"/d\\u0000EVIL-MARKER\\n\":{}}}}")));
        assertThrows(DockerProtocolException.class, () -> Views.image(tree("{\"Id\":\"sha256:" + "a".repeat(64)
                + "\",\"Config\":{\"Volumes\":{\"relative\":{}}}}")));
        assertEquals(List.of("/data"), Views.image(tree("{\"Id\":\"sha256:" + "a".repeat(64)
                + "\",\"Config\":{\"Volumes\":{\"/data\":{}}}}")).volumes());
    }

    @Test
    void aListedContainerWithoutAFullIdIsAProtocolError() throws Exception {
        assertThrows(DockerProtocolException.class, () -> Views.summary(tree("{\"Id\":\"dogama-other\"}")));
        assertThrows(DockerProtocolException.class, () -> Views.summary(tree("{\"Id\":\"abc123\"}")));
        assertEquals("f".repeat(64), Views.summary(tree("{\"Id\":\"" + "f".repeat(64) + "\"}")).id());
    }

    @Test
    void wrongTypesAreProtocolErrors() {
        assertThrows(DockerProtocolException.class, () -> Views.container(tree("{\"Id\":1}")));
        assertThrows(DockerProtocolException.class, () -> Views.container(tree("{\"Id\":\"a\",\"Config\":[]}")));
        assertThrows(DockerProtocolException.class,
                () -> Views.container(tree("{\"Id\":\"a\",\"Config\":{\"Labels\":{\"a\":1}}}")));
        assertThrows(DockerProtocolException.class, () -> Tree.parseArray("{}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(DockerProtocolException.class, () -> tree("[]"));
        assertThrows(DockerProtocolException.class, () -> tree(""));
    }

    @Test
    void negotiationTakesTheLowerVersionAndNeverGoesBelow141() throws Exception {
        assertEquals(new ApiVersion(1, 41), Engines.negotiate("1.41", "1.12"));
        assertEquals(new ApiVersion(1, 43), Engines.negotiate("1.43", ""));
        assertEquals(new ApiVersion(1, 47), Engines.negotiate("1.50", "1.24"));
        assertEquals(new ApiVersion(1, 47), Engines.negotiate("2.0", "1.24"));
        assertThrows(DockerUnavailableException.class, () -> Engines.negotiate("1.40", "1.12"));
        assertThrows(DockerUnavailableException.class, () -> Engines.negotiate("1.9", ""));
        assertThrows(DockerUnavailableException.class, () -> Engines.negotiate("1.52", "1.48"));
        assertThrows(DockerProtocolException.class, () -> Engines.negotiate("one", ""));
        assertThrows(DockerProtocolException.class, () -> Engines.negotiate("1.41", "x"));
    }

    @Test
    void requestsAreNeverSplit() {
        assertThrows(IllegalArgumentException.class, () -> new Request(Request.Method.GET, "/a\r\nX: y", null));
        assertThrows(IllegalArgumentException.class, () -> new Request(Request.Method.GET, "/a b", null));
        assertThrows(IllegalArgumentException.class, () -> new Request(Request.Method.GET, "a", null));
        assertEquals("POST /v1.41/containers/x/stop?t=3 HTTP/1.1\r\nHost: docker\r\nUser-Agent: dogama-agent\r\n"
                + "Accept: application/json\r\nContent-Length: 0\r\n\r\n",
                new String(Request.post(Target.versioned(new ApiVersion(1, 41)).path("containers").container("x")
                        .path("stop").query("t", 3)).encode(), StandardCharsets.US_ASCII));
    }
}
