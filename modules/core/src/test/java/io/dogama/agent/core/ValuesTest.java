package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The invariants core's values hold whoever makes them: the last line behind the policy's checks, so that no
 * value outside the contract's ranges can reach a Docker create body even through a path the policy missed.
 */
class ValuesTest {
    @Test
    void aHostPortIsOneTo65535() {
        assertEquals(1, new HostPort("0.0.0.0", 1, Protocol.TCP).hostPort());
        assertEquals(65535, new HostPort("0.0.0.0", 65535, Protocol.TCP).hostPort());
        for (int port : new int[] {0, -1, 65536, Integer.MIN_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> new HostPort("0.0.0.0", port, Protocol.TCP),
                    "port " + port);
        }
    }

    @Test
    void bindingsCollideOnlyOnTheSamePortAndProtocolAndAnOverlappingAddress() {
        HostPort any = new HostPort("0.0.0.0", 25565, Protocol.TCP);
        HostPort one = new HostPort("192.0.2.7", 25565, Protocol.TCP);
        HostPort other = new HostPort("192.0.2.8", 25565, Protocol.TCP);
        assertTrue(one.conflictsWith(new HostPort("192.0.2.7", 25565, Protocol.TCP)));
        assertTrue(any.conflictsWith(one), "the wildcard holds every address");
        assertTrue(one.conflictsWith(any), "the wildcard holds every address");
        assertTrue(new HostPort("::", 25565, Protocol.TCP).conflictsWith(one));
        assertFalse(one.conflictsWith(other), "two addresses");
        assertFalse(one.conflictsWith(new HostPort("192.0.2.7", 25566, Protocol.TCP)), "two ports");
        assertFalse(one.conflictsWith(new HostPort("192.0.2.7", 25565, Protocol.UDP)), "two protocols");
        assertFalse(any.conflictsWith(new HostPort("0.0.0.0", 25565, Protocol.UDP)), "two protocols");
    }

    @Test
    void aContainerPortIsOneTo65535() {
        HostPort host = new HostPort("0.0.0.0", 8080, Protocol.TCP);
        assertEquals(1, new ContainerSpec.PublishedPort(1, host).containerPort());
        assertEquals(65535, new ContainerSpec.PublishedPort(65535, host).containerPort());
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.PublishedPort(0, host));
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.PublishedPort(65536, host));
    }

    @Test
    void everyLimitIsPositive() {
        new ContainerSpec.Limits(1, 1, 1);
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.Limits(0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.Limits(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.Limits(1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.Limits(1, 1, -1));
        assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.TmpfsMount("/tmp", 0));
        assertEquals(1, new ContainerSpec.TmpfsMount("/tmp", 1).sizeBytes());
    }

    /** Docker reads on-failure with 0 retries as "retry for ever": on-failure takes 1 to 10, the others none. */
    @Test
    void aRestartPolicyIsBounded() {
        ContainerSpec.RestartPolicy.Mode onFailure = ContainerSpec.RestartPolicy.Mode.ON_FAILURE;
        assertEquals(1, new ContainerSpec.RestartPolicy(onFailure, 1).maxRetries());
        assertEquals(10, new ContainerSpec.RestartPolicy(onFailure, 10).maxRetries());
        for (int retries : new int[] {0, -1, 11}) {
            assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.RestartPolicy(onFailure, retries),
                    "on-failure with " + retries);
        }
        for (ContainerSpec.RestartPolicy.Mode mode : ContainerSpec.RestartPolicy.Mode.values()) {
            if (mode != onFailure) {
                assertEquals(0, new ContainerSpec.RestartPolicy(mode, 0).maxRetries());
                assertThrows(IllegalArgumentException.class, () -> new ContainerSpec.RestartPolicy(mode, 1),
                        mode + " with a retry count");
            }
        }
    }

    @Test
    void aProtocolIsExactlyTcpOrUdp() {
        assertEquals(Optional.of(Protocol.TCP), Protocol.parse("tcp"));
        assertEquals(Optional.of(Protocol.UDP), Protocol.parse("udp"));
        for (String s : new String[] {"TCP", "Udp", "sctp", "", " tcp", null}) {
            assertEquals(Optional.empty(), Protocol.parse(s), String.valueOf(s));
        }
        assertEquals("tcp", Protocol.TCP.wire());
        assertEquals("udp", Protocol.UDP.wire());
    }

    @Test
    void anInstanceIdIsValidatedAndNamesItsContainers() {
        InstanceId id = new InstanceId("mc-0001");
        assertEquals("dogama-mc-0001", id.containerName());
        assertEquals("dogama-mc-0001-r3", id.priorContainerName(3));
        assertEquals("mc-0001", id.toString());
        for (String bad : new String[] {"", "MC-0001", "-mc", "mc/0001", "mc 0001"}) {
            assertThrows(IllegalArgumentException.class, () -> new InstanceId(bad), bad);
        }
    }

    @Test
    void aTemplateVersionIsThreeNumbersWithoutLeadingZeros() {
        for (String v : new String[] {"1.0.0", "0.0.0", "10.20.30", "999999.0.1"}) {
            assertTrue(Ids.isVersion(v), v);
        }
        for (String v : new String[] {"1.0", "01.0.0", "1.0.0-rc1", "1.0.0 ", "1000000.0.0", "", null}) {
            assertFalse(Ids.isVersion(v), String.valueOf(v));
        }
    }

    @Test
    void anOutcomeCarriesItsValueOrItsProblem() {
        assertEquals("x", ((Outcome.Ok<String>) Outcome.ok("x")).value());
        Outcome.Failed<String> busy = (Outcome.Failed<String>) Outcome.<String>failed(ProblemCode.BUSY);
        assertEquals(ProblemCode.BUSY, busy.code());
        assertEquals(List.of(), busy.violations());
        List<Violation> violations = List.of(new Violation("ports[0].hostPort", "outside_port_range"));
        Outcome.Failed<String> rejected = (Outcome.Failed<String>) Outcome.<String>rejected(violations);
        assertEquals(ProblemCode.PLAN_REJECTED, rejected.code());
        assertEquals(violations, rejected.violations());
        Outcome.Failed<Integer> cast = (Outcome.Failed<Integer>) rejected.<Integer>cast();
        assertEquals(rejected.code(), cast.code());
        assertEquals(violations, cast.violations());
        assertThrows(IllegalArgumentException.class, () -> Outcome.rejected(List.of()), "a rejection without a violation");
    }
}
