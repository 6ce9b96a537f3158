package io.dogama.agent.policy.bench;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.ImageFacts;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.ValidatedPlan;
import io.dogama.agent.policy.ValidationContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Parse + validate of the demo plan (SPEC section 12) against a real directory layout: the cost the
 * agent pays per create or replace before it touches Docker. Run by hand, see docs/bench-policy.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PolicyBench {
    private static final String IMAGE_ID = "sha256:e0d78e698369f6bd67ecd62429442e06f7e1423b813ec6f7503fff67a81cd496";

    private Path dir;
    private PlanPolicy policy;
    private byte[] planJson;
    private Plan plan;
    private ImageFacts image;

    /** Creates the benchmark; JMH instantiates it. */
    public PolicyBench() {
    }

    /**
     * Builds a root, a data folder, a config and the demo plan.
     *
     * @throws IOException     if the temporary layout cannot be made
     * @throws PolicyException if the config or catalog is invalid
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException, PolicyException {
        dir = Files.createTempDirectory("policy-bench").toRealPath();
        Path data = Files.createDirectories(dir.resolve("srv/instances/demo-0001/data"));
        Files.createDirectories(dir.resolve("run"));
        Files.createDirectories(dir.resolve("lib"));
        String config = """
                {"listen":{"host":"127.0.0.1","port":8480},"dockerSocket":"DIR/run/docker.sock",
                 "secretFile":"DIR/secret","dataDir":"DIR/lib","allowedRoots":{"instances":"DIR/srv/instances"},
                 "networks":["dogama-games"],"hostIps":["0.0.0.0"],"hostPorts":{"min":20000,"max":40000},
                 "limits":{"memoryBytes":8589934592,"nanoCpus":4000000000,"pidsLimit":1024,"instances":200},
                 "allowRootUser":false}""".replace("DIR", dir.toString());
        policy = PlanPolicy.create(AdminConfig.parse(config.getBytes(StandardCharsets.UTF_8)), Catalog.embedded());
        String demo = """
                {"instanceId":"demo-0001","templateId":"demo-http","templateVersion":"1.0.0",
                 "image":"dogama/demo-http:1","capAdd":[],"env":{"GREETING":"Hello, world!"},
                 "mounts":[{"source":"DATA","target":"/data","readOnly":false}],
                 "ports":[{"name":"http","containerPort":8080,"protocol":"tcp","hostIp":"0.0.0.0","hostPort":20080}],
                 "resources":{"memoryBytes":67108864,"nanoCpus":500000000,"pidsLimit":64},
                 "user":"65534:65534","labels":{"owner":"team-a"},"networks":["dogama-games"]}"""
                .replace("DATA", data.toString());
        planJson = demo.getBytes(StandardCharsets.UTF_8);
        plan = ((Outcome.Ok<Plan>) PlanParser.parse(planJson)).value();
        image = new ImageFacts(IMAGE_ID, List.of(), "65534:65534", List.of());
        if (!(parseAndValidate() instanceof Outcome.Ok<ValidatedPlan>)) {
            throw new PolicyException("bench: the demo plan does not validate");
        }
    }

    /**
     * Removes the temporary layout.
     *
     * @throws IOException if it cannot be removed
     */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** @return the parsed plan */
    @Benchmark
    public Outcome<Plan> parse() {
        return PlanParser.parse(planJson);
    }

    /** @return the validated plan: parse, digest, every rule incl. toRealPath of the mount source */
    @Benchmark
    public Outcome<ValidatedPlan> parseAndValidate() {
        return policy.validate(planJson, ValidationContext.EMPTY);
    }

    /** @return the validated plan, from an already parsed plan */
    @Benchmark
    public Outcome<ValidatedPlan> validateOnly() {
        return policy.validate(plan, ValidationContext.EMPTY);
    }

    /** @return the approved plan with its container spec: the whole policy path of a create */
    @Benchmark
    public Outcome<ApprovedPlan> parseValidateApprove() {
        return switch (policy.validate(planJson, ValidationContext.EMPTY)) {
            case Outcome.Ok<ValidatedPlan> ok -> policy.approve(ok.value(), image);
            case Outcome.Failed<ValidatedPlan> f -> f.cast();
        };
    }

    /**
     * Runs every benchmark of this class.
     *
     * @param args ignored
     * @throws RunnerException if JMH fails
     */
    public static void main(String[] args) throws RunnerException {
        new Runner(new OptionsBuilder().include(PolicyBench.class.getName()).build()).run();
    }
}
