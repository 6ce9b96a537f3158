package io.dogama.agent.registry.internal.bench;

import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * get and compare-and-set on a persisted registry of 200 instances (the administrator's default limit),
 * every write with its HMAC-SHA-256 (a get reads the memory: the file is read at open only). Run it as described in
 * docs/bench-registry.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1)
public class RegistryBench {
    static final int INSTANCES = 200;

    /** The shared registry. */
    @State(Scope.Benchmark)
    public static class Shared {
        Registry registry;
        Path dir;
        String[] ids;
        final AtomicInteger nextOwned = new AtomicInteger();

        @Setup(Level.Trial)
        public void open() throws IOException, RegistryException {
            dir = Files.createTempDirectory("registry-bench");
            registry = Registry.open(dir, INSTANCES);
            ids = new String[INSTANCES];
            for (int i = 0; i < INSTANCES; i++) {
                ids[i] = String.format("inst-%04d", i);
                registry.insert(record(ids[i], i));
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            registry.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** One instance owned by each benchmark thread, so that its compare-and-set never conflicts. */
    @State(Scope.Thread)
    public static class Owned {
        String id;
        InstanceRecord a;
        InstanceRecord b;
        long generation;
        boolean flip;

        @Setup(Level.Trial)
        public void pick(Shared s) throws RegistryException {
            id = s.ids[s.nextOwned.getAndIncrement() % INSTANCES];
            a = ((Lookup.Found) s.registry.get(id)).record();
            b = a.withState(InstanceState.STOPPED);
            generation = ((Lookup.Found) s.registry.get(id)).generation();
        }
    }

    static InstanceRecord record(String id, int n) {
        String hex = HexFormat.of().formatHex(new byte[32]).replace('0', (char) ('a' + n % 6));
        String plan = "{\"capAdd\":[],\"env\":{\"GREETING\":\"hello " + n + "\"},\"image\":\"dogama/demo-http:1\","
                + "\"instanceId\":\"" + id + "\",\"mounts\":[{\"readOnly\":false,\"source\":\"/srv/dogama/instances/"
                + id + "/data\",\"target\":\"/data\"}],\"networks\":[\"dogama-games\"],\"ports\":[{\"containerPort\":"
                + "8080,\"hostIp\":\"0.0.0.0\",\"hostPort\":" + (20000 + n) + ",\"name\":\"http\",\"protocol\":\"tcp\"}],"
                + "\"resources\":{\"memoryBytes\":67108864,\"nanoCpus\":500000000,\"pidsLimit\":64},"
                + "\"templateId\":\"demo-http\",\"templateVersion\":\"1.0.0\"}";
        return new InstanceRecord(id, Optional.of(hex), "dogama-" + id, "demo-http", "1.0.0", "sha256:" + hex, plan,
                InstanceState.RUNNING, 1, Optional.empty(), Optional.empty());
    }

    /** A verified read of a random instance. */
    @Benchmark
    public Lookup get(Shared s) throws RegistryException {
        return s.registry.get(s.ids[ThreadLocalRandom.current().nextInt(INSTANCES)]);
    }

    /** The same with two threads (the machine has two cores). */
    @Benchmark
    @Threads(2)
    public Lookup get2Threads(Shared s) throws RegistryException {
        return s.registry.get(s.ids[ThreadLocalRandom.current().nextInt(INSTANCES)]);
    }

    /** An uncontended compare-and-set: read, verify, compare generation, sign, write. */
    @Benchmark
    public CasResult compareAndSet(Shared s, Owned o) throws RegistryException {
        o.flip = !o.flip;
        CasResult r = s.registry.replace(o.generation, o.flip ? o.b : o.a);
        if (r instanceof CasResult.Stored st) {
            o.generation = st.generation();
        } else {
            throw new IllegalStateException("unexpected " + r);
        }
        return r;
    }

    /** Compare-and-set by two threads on two instances at once. */
    @Benchmark
    @Threads(2)
    public CasResult compareAndSet2Threads(Shared s, Owned o) throws RegistryException {
        return compareAndSet(s, o);
    }
}
