package io.dogama.agent.docker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.ContainerSpec.BindMount;
import io.dogama.agent.core.ContainerSpec.Limits;
import io.dogama.agent.core.ContainerSpec.PublishedPort;
import io.dogama.agent.core.ContainerSpec.RestartPolicy;
import io.dogama.agent.core.ContainerSpec.TmpfsMount;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Protocol;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The create body pinned byte for byte, and the defensive refusals of this module. */
class CreateBodyTest {
    static final String IMAGE = "sha256:" + "e".repeat(64);

    static ContainerSpec sample(String name, List<String> networks) {
        return new ContainerSpec(name, IMAGE, Optional.of(List.of("/bin/httpd", "-f")),
                Optional.of(List.of("/bin/sh", "-c")), Map.of("GREETING", "hi \"there\"", "A", "1"),
                Optional.of("1000:1000"), Optional.of("/data"), Map.of("owner", "team-a", "io.dogama.managed", "true"),
                List.of("NET_BIND_SERVICE"), List.of(new BindMount("/srv/dogama/instances/mc/data", "/data", false)),
                List.of(new TmpfsMount("/tmp", 16_777_216)),
                List.of(new PublishedPort(8080, new HostPort("0.0.0.0", 25565, Protocol.TCP)),
                        new PublishedPort(8080, new HostPort("127.0.0.1", 25566, Protocol.TCP)),
                        new PublishedPort(53, new HostPort("0.0.0.0", 20053, Protocol.UDP))),
                new Limits(268_435_456L, 1_000_000_000L, 128), networks, true,
                new RestartPolicy(RestartPolicy.Mode.ON_FAILURE, 3), Optional.of("SIGINT"));
    }

    static final String GOLDEN = """
            {"User":"1000:1000","Env":["A=1","GREETING=hi \\"there\\""],"Cmd":["/bin/httpd","-f"],
            "Entrypoint":["/bin/sh","-c"],"Image":"sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
            "WorkingDir":"/data","Labels":{"io.dogama.managed":"true","owner":"team-a"},"StopSignal":"SIGINT",
            "ExposedPorts":{"53/udp":{},"8080/tcp":{}},
            "HostConfig":{"NetworkMode":"dogama-games",
            "PortBindings":{"53/udp":[{"HostIp":"0.0.0.0","HostPort":"20053"}],
            "8080/tcp":[{"HostIp":"0.0.0.0","HostPort":"25565"},{"HostIp":"127.0.0.1","HostPort":"25566"}]},
            "RestartPolicy":{"Name":"on-failure","MaximumRetryCount":3},
            "LogConfig":{"Type":"json-file","Config":{"max-size":"10m","max-file":"3"}},
            "Privileged":false,"Init":true,"CapDrop":["ALL"],"CapAdd":["NET_BIND_SERVICE"],
            "SecurityOpt":["no-new-privileges:true"],"ReadonlyRootfs":true,"IpcMode":"private","PidMode":"",
            "UTSMode":"","UsernsMode":"","CgroupnsMode":"private","Memory":268435456,"MemorySwap":268435456,
            "NanoCpus":1000000000,"PidsLimit":128,
            "Mounts":[{"Type":"bind","Source":"/srv/dogama/instances/mc/data","Target":"/data","ReadOnly":false,
            "BindOptions":{"Propagation":"rprivate"}}],
            "Tmpfs":{"/tmp":"rw,noexec,nosuid,nodev,size=16777216"}},
            "NetworkingConfig":{"EndpointsConfig":{"dogama-games":{}}}}
            """.replaceAll("\\n", "");

    @Test
    void theBodyIsPinnedByteForByte() {
        String json = new String(CreateBody.json(sample("dogama-mc-0001", List.of("dogama-games", "other"))),
                StandardCharsets.UTF_8);
        assertEquals(GOLDEN, json);
    }

    /** Keys SPEC section 8 forbids, or wants left to the engine's defaults, anywhere in the body. */
    static final Set<String> NEVER = Set.of("Binds", "Volumes", "VolumesFrom", "Devices", "DeviceRequests",
            "DeviceCgroupRules", "Sysctls", "Links", "ExtraHosts", "Runtime", "CgroupParent", "OomKillDisable",
            "GroupAdd", "Ulimits", "OomScoreAdj", "Annotations", "Isolation", "StorageOpt", "PublishAllPorts", "Dns",
            "DnsOptions", "DnsSearch", "MaskedPaths", "ReadonlyPaths", "Healthcheck", "MacAddress", "IPAddress",
            "IPAMConfig", "Aliases", "CreateMountpoint", "ShmSize");

    @Test
    void noForbiddenFieldAppearsAnywhere() throws Exception {
        Map<String, Object> body = JSON.std.mapFrom(CreateBody.json(sample("dogama-x", List.of("n1", "n2"))));
        List<String> keys = new ArrayList<>();
        collectKeys(body, keys);
        for (String k : keys) {
            assertFalse(NEVER.contains(k), "forbidden key " + k);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> host = (Map<String, Object>) body.get("HostConfig");
        assertEquals(Boolean.FALSE, host.get("Privileged"));
        assertEquals(Map.of("n1", Map.of()), ((Map<?, ?>) body.get("NetworkingConfig")).get("EndpointsConfig"),
                "only the first network, with no address, MAC or alias");
    }

    private static void collectKeys(Object o, List<String> into) {
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                into.add((String) e.getKey());
                collectKeys(e.getValue(), into);
            }
        } else if (o instanceof List<?> l) {
            l.forEach(x -> collectKeys(x, into));
        }
    }

    @Test
    void optionalFieldsAreOmittedNotNull() throws Exception {
        ContainerSpec s = new ContainerSpec("dogama-x", IMAGE, Optional.empty(), Optional.empty(), Map.of(),
                Optional.empty(), Optional.empty(), Map.of(), List.of(), List.of(), List.of(), List.of(),
                new Limits(1 << 24, 100_000_000, 32), List.of("n"), false, RestartPolicy.NO, Optional.empty());
        Map<String, Object> body = JSON.std.mapFrom(CreateBody.json(s));
        for (String k : List.of("User", "Cmd", "Entrypoint", "WorkingDir", "StopSignal")) {
            assertFalse(body.containsKey(k), k);
        }
        String json = new String(CreateBody.json(s), StandardCharsets.UTF_8);
        assertFalse(json.contains("null"), json);
        assertTrue(json.contains("\"RestartPolicy\":{\"Name\":\"no\",\"MaximumRetryCount\":0}"), json);
        assertTrue(json.contains("\"ReadonlyRootfs\":false"), json);
    }

    /** A copy of the sample with one part changed. */
    static ContainerSpec with(UnaryOperator<Parts> change) {
        ContainerSpec s = sample("dogama-x", List.of("dogama-games"));
        Parts p = change.apply(new Parts(s.name(), s.image(), s.env(), s.user(), s.workingDir(), s.labels(),
                s.capAdd(), s.mounts(), s.tmpfs(), s.ports(), s.networks(), s.stopSignal()));
        return new ContainerSpec(p.name, p.image, s.command(), s.entrypoint(), p.env, p.user, p.workingDir, p.labels,
                p.capAdd, p.mounts, p.tmpfs, p.ports, s.resources(), p.networks, s.readOnlyRootfs(), s.restartPolicy(),
                p.stopSignal);
    }

    record Parts(String name, String image, Map<String, String> env, Optional<String> user, Optional<String> workingDir,
            Map<String, String> labels, List<String> capAdd, List<BindMount> mounts, List<TmpfsMount> tmpfs,
            List<PublishedPort> ports, List<String> networks, Optional<String> stopSignal) {
        Parts name(String v) {
            return new Parts(v, image, env, user, workingDir, labels, capAdd, mounts, tmpfs, ports, networks, stopSignal);
        }

        Parts image(String v) {
            return new Parts(name, v, env, user, workingDir, labels, capAdd, mounts, tmpfs, ports, networks, stopSignal);
        }

        Parts env(Map<String, String> v) {
            return new Parts(name, image, v, user, workingDir, labels, capAdd, mounts, tmpfs, ports, networks, stopSignal);
        }

        Parts user(String v) {
            return new Parts(name, image, env, Optional.of(v), workingDir, labels, capAdd, mounts, tmpfs, ports, networks,
                    stopSignal);
        }

        Parts workingDir(String v) {
            return new Parts(name, image, env, user, Optional.of(v), labels, capAdd, mounts, tmpfs, ports, networks,
                    stopSignal);
        }

        Parts labels(Map<String, String> v) {
            return new Parts(name, image, env, user, workingDir, v, capAdd, mounts, tmpfs, ports, networks, stopSignal);
        }

        Parts capAdd(List<String> v) {
            return new Parts(name, image, env, user, workingDir, labels, v, mounts, tmpfs, ports, networks, stopSignal);
        }

        Parts mounts(List<BindMount> v) {
            return new Parts(name, image, env, user, workingDir, labels, capAdd, v, tmpfs, ports, networks, stopSignal);
        }

        Parts tmpfs(List<TmpfsMount> v) {
            return new Parts(name, image, env, user, workingDir, labels, capAdd, mounts, v, ports, networks, stopSignal);
        }

        Parts ports(List<PublishedPort> v) {
            return new Parts(name, image, env, user, workingDir, labels, capAdd, mounts, tmpfs, v, networks, stopSignal);
        }

        Parts networks(List<String> v) {
            return new Parts(name, image, env, user, workingDir, labels, capAdd, mounts, tmpfs, ports, v, stopSignal);
        }

        Parts stopSignal(String v) {
            return new Parts(name, image, env, user, workingDir, labels, capAdd, mounts, tmpfs, ports, networks,
                    Optional.of(v));
        }
    }

    static void refused(UnaryOperator<Parts> change) {
        ContainerSpec s = with(change);
        assertThrows(IllegalArgumentException.class, () -> CreateBody.json(s));
    }

    /** Refused by the check that says {@code why}, not by another one the change also trips. */
    static void refused(UnaryOperator<Parts> change, String why) {
        ContainerSpec s = with(change);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CreateBody.json(s));
        assertEquals("docker: " + why, e.getMessage());
    }

    /** The control every refusal here is measured against: the sample itself passes, whole. */
    @Test
    void theUnchangedSampleIsAccepted() {
        String json = new String(CreateBody.json(with(p -> p)), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"CapDrop\":[\"ALL\"]"), json);
    }

    @Test
    void forbiddenNetworkModesAreRefused() {
        for (String n : List.of("host", "none", "bridge", "default", "HOST", "Bridge", "container:abc", "container")) {
            if (n.equals("container")) {
                CreateBody.json(with(p -> p.networks(List.of(n)))); // a network may be named so; only container:* is a mode
                continue;
            }
            refused(p -> p.networks(List.of(n)));
            refused(p -> p.networks(List.of("dogama-games", n)));
        }
        refused(p -> p.networks(List.of("dogama-games", "dogama-games")));
    }

    @Test
    void capabilitiesAreCheckedAndAllIsNeverAdded() {
        refused(p -> p.capAdd(List.of("ALL")));
        refused(p -> p.capAdd(List.of("all")));
        refused(p -> p.capAdd(List.of("CAP_ALL")));
        refused(p -> p.capAdd(List.of("NET_ADMIN,SYS_ADMIN")));
        CreateBody.json(with(p -> p.capAdd(List.of("CAP_NET_BIND_SERVICE"))));
    }

    @Test
    void pathsMustBeCleanAndAbsolute() {
        refused(p -> p.mounts(List.of(new BindMount("relative/dir", "/data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/x/../../etc", "/data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/./x", "/data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/x/", "/data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/", "/data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/x", "/", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/x", "data", false))));
        refused(p -> p.mounts(List.of(new BindMount("/srv/x\n", "/data", false))));
        refused(p -> p.tmpfs(List.of(new TmpfsMount("/tmp,exec", 1))));
        refused(p -> p.tmpfs(List.of(new TmpfsMount("/tmp:exec", 1))));
        refused(p -> p.tmpfs(List.of(new TmpfsMount("tmp", 1))));
        refused(p -> p.tmpfs(List.of(new TmpfsMount("/", 1))), "invalid tmpfs target");
        refused(p -> p.workingDir("data"));
        CreateBody.json(with(p -> p.mounts(List.of(new BindMount("/srv/my data", "/data", false))))); // space: printable
        refused(p -> p.mounts(List.of(new BindMount("/srv/x\u001fy", "/data", false))));
    }

    @Test
    void identityValuesAreChecked() {
        refused(p -> p.name("../x"));
        refused(p -> p.name("a b"));
        refused(p -> p.image("sha256:short"));
        refused(p -> p.image("Evil Image"));
        refused(p -> p.image("registry.example/dogama/minecraft:1"));
        CreateBody.json(with(p -> p.image("registry.example/dogama/minecraft@sha256:" + "a".repeat(64))));
        refused(p -> p.user("root"));
        refused(p -> p.user("1000"));
        refused(p -> p.user("1000:1000:1"));
        refused(p -> p.stopSignal("KILL; rm -rf /"));
        refused(p -> p.env(Map.of("A=B", "c")));
        refused(p -> p.env(Map.of("", "c")));
        refused(p -> p.env(Map.of("A", "c\u0000d")));
        refused(p -> p.env(Map.of("A", "\u0000d")), "invalid environment entry"); // a NUL first, too
        refused(p -> p.labels(Map.of("a\nb", "c")), "invalid label");
        refused(p -> p.labels(Map.of("", "c")), "invalid label");
        refused(p -> p.labels(Map.of("a", "c\u0000d")), "invalid label");
        refused(p -> p.labels(Map.of("a", "\u0000d")), "invalid label");
        refused(p -> p.labels(Map.of("a\u007fb", "c")), "invalid label"); // DEL is a control character too
        CreateBody.json(with(p -> p.image("sha256:" + "b".repeat(64)))); // an image ID is pinned
        String pin = "@sha256:" + "a".repeat(64);
        CreateBody.json(with(p -> p.image("r/" + "a".repeat(253) + pin))); // the longest name the grammar allows
        refused(p -> p.image("r/" + "a".repeat(254) + pin));
        refused(p -> p.ports(List.of(new PublishedPort(80, new HostPort("localhost", 20080, Protocol.TCP)))));
        refused(p -> p.ports(List.of(new PublishedPort(80, new HostPort("", 20080, Protocol.TCP)))));
    }

    @Test
    void theConnectBodyNamesOnlyTheContainer() {
        assertEquals("{\"Container\":\"abc\",\"EndpointConfig\":{}}",
                new String(CreateBody.connectJson("abc"), StandardCharsets.UTF_8));
    }
}
