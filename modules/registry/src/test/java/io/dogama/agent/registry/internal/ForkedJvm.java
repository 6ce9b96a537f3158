package io.dogama.agent.registry.internal;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Starts {@link ForkedRegistryMain} in a fresh JVM, the registry and core as named modules. */
final class ForkedJvm {
    private ForkedJvm() {
    }

    /** How a forked JVM ended: its status, and what it wrote to standard output and error. */
    record Finished(int status, String output) {
    }

    /**
     * Runs {@code java} to its end, at most two minutes; its output goes to {@code log}.
     *
     * @return how it ended
     */
    static Finished run(ProcessBuilder java, Path log) throws Exception {
        Process p = java.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError("the forked JVM did not finish: " + java.command());
            }
        } finally {
            p.destroyForcibly();
        }
        return new Finished(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /**
     * @param extraJvm extra JVM options
     * @param args     program arguments
     */
    static ProcessBuilder command(List<String> extraJvm, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> modulePath = childModulePath();
        String testClasses = split(System.getProperty("java.class.path", "")).stream()
                .filter(e -> !e.endsWith(".jar")).findFirst()
                .orElseThrow(() -> new IllegalStateException("test classes not found on the class path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx128m");
        cmd.addAll(extraJvm);
        cmd.add("--module-path");
        cmd.add(modulePath.stream().collect(Collectors.joining(File.pathSeparator)));
        cmd.add("--patch-module");
        cmd.add("io.dogama.agent.registry=" + testClasses);
        cmd.add("-m");
        cmd.add("io.dogama.agent.registry/" + ForkedRegistryMain.class.getName());
        cmd.addAll(Arrays.asList(args));
        return new ProcessBuilder(cmd);
    }

    /** The test JVM's module path plus every jar of its class path but JUnit's. */
    private static List<String> childModulePath() {
        List<String> modulePath = new ArrayList<>(split(System.getProperty("jdk.module.path", "")));
        for (String entry : split(System.getProperty("java.class.path", ""))) {
            String name = Path.of(entry).getFileName().toString();
            if (entry.endsWith(".jar") && !name.startsWith("junit-") && !name.startsWith("opentest4j")
                    && !name.startsWith("apiguardian")) {
                modulePath.add(entry);
            }
        }
        return modulePath;
    }

    private static List<String> split(String path) {
        return Arrays.stream(path.split(File.pathSeparator)).filter(s -> !s.isBlank()).toList();
    }
}
