package io.dogama.agent.registry.internal;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.InstanceRecord;
import java.util.HexFormat;
import java.util.Optional;

/** Realistic records for the tests. */
final class Samples {
    private Samples() {
    }

    static String hex64(int seed) {
        byte[] b = new byte[32];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return HexFormat.of().formatHex(b);
    }

    static String plan(String id, int n) {
        return "{\"capAdd\":[],\"env\":{\"GREETING\":\"hello " + n + "\"},\"image\":\"dogama/demo-http:1\","
                + "\"instanceId\":\"" + id + "\",\"mounts\":[{\"readOnly\":false,\"source\":\"/srv/dogama/instances/"
                + id + "/data\",\"target\":\"/data\"}],\"networks\":[\"dogama-games\"],\"ports\":[{\"containerPort\":8080,"
                + "\"hostIp\":\"0.0.0.0\",\"hostPort\":20080,\"name\":\"http\",\"protocol\":\"tcp\"}],\"resources\":"
                + "{\"memoryBytes\":67108864,\"nanoCpus\":500000000,\"pidsLimit\":64},\"templateId\":\"demo-http\","
                + "\"templateVersion\":\"1.0.0\"}";
    }

    static InstanceRecord record(String id, int n) {
        return new InstanceRecord(id, Optional.of(hex64(n)), "dogama-" + id, "demo-http", "1.0.0",
                "sha256:" + hex64(n + 1), plan(id, n), InstanceState.RUNNING, n, Optional.empty(), Optional.empty());
    }

    static InstanceRecord replacing(String id, int n) {
        InstanceRecord.Prior prior = new InstanceRecord.Prior(plan(id, n - 1), "sha256:" + hex64(n - 1), "demo-http",
                "1.0.0", Optional.of(hex64(n + 7)), "dogama-" + id + "-r" + (n - 1), true);
        return record(id, n).withState(InstanceState.REPLACING).withContainerId(Optional.empty())
                .withPrior(Optional.of(prior)).withStep(Optional.of("renamed-old"));
    }
}
