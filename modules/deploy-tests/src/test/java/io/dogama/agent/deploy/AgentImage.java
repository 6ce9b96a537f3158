package io.dogama.agent.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The image under test, built by {@code scripts/image} from the jlink runtime the reactor just linked.
 * Built once per test JVM (and again only by the reproducibility test): the script reuses its kept AOT
 * training, so a build with unchanged inputs takes seconds and gives the same ID.
 */
final class AgentImage {
    /** A first build trains the AOT cache against the engine: about a minute on two busy cores. */
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(10);
    static final String REPOSITORY = "dogama/agent";
    private static final Pattern ID = Pattern.compile("sha256:[0-9a-f]{64}");
    private static Built built;

    record Built(String tag, String id) {
    }

    private AgentImage() {
    }

    static synchronized Built get() {
        if (built == null) {
            built = build();
        }
        return built;
    }

    static Path root() {
        return Path.of(System.getProperty("dogama.root", "../..")).toAbsolutePath().normalize();
    }

    /** Runs scripts/image and returns what it built; fails with the script's diagnostics. */
    static Built build() {
        Engine engine = Engine.get();
        Path runtime = root().resolve("jlink/target/dogama-agent/bin/java");
        if (!Files.isExecutable(runtime)) {
            throw new AssertionError("no jlink runtime at " + runtime + ": build the jlink module first");
        }
        Proc.Result r = Proc.run(List.of(root().resolve("scripts/image").toString()),
                Map.of("DOCKER_HOST", engine.dockerHost), root(), BUILD_TIMEOUT);
        // The script's diagnostics (training, sizes) stay readable after the run.
        try {
            Files.writeString(Path.of("target/scripts-image.log"), r.stderr(), java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            throw new AssertionError("cannot write target/scripts-image.log: " + e, e);
        }
        r.requireSuccess();
        List<String> lines = r.stdout().lines().toList();
        String id = lines.isEmpty() ? "" : lines.getLast().strip();
        if (!ID.matcher(id).matches()) {
            throw new AssertionError("scripts/image printed '" + r.stdout() + "', not an image ID:\n" + r.stderrTail());
        }
        List<String> tags = engine.client.inspectImageCmd(id).exec().getRepoTags();
        String tag = tags == null ? null : tags.stream().filter(t -> t.startsWith(REPOSITORY + ":")).findFirst()
                .orElse(null);
        if (tag == null) {
            throw new AssertionError("image " + id + " carries no " + REPOSITORY + " tag: " + tags);
        }
        return new Built(tag, id);
    }
}
