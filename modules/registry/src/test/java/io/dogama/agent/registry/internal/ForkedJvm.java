package io.dogama.agent.registry.internal;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Starts {@link ForkedRegistryMain} in a fresh JVM the way the runtime image runs the agent: every
 * Chronicle jar on the module path as a named module, chronicle-compiler's CompilerUtils patched as the
 * image's build patches it, and the Chronicle options of the root POM.
 */
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
     * @param withChronicleOptions whether to pass the root POM's Chronicle options
     * @param args     program arguments
     */
    static ProcessBuilder command(List<String> extraJvm, boolean withChronicleOptions, String... args) {
        return command(extraJvm, withChronicleOptions, true, args);
    }

    /**
     * @param withNativeClasses whether to patch the build-time generated Chronicle class into chronicle.map
     */
    static ProcessBuilder command(List<String> extraJvm, boolean withChronicleOptions, boolean withNativeClasses,
            String... args) {
        return command(extraJvm, withChronicleOptions, withNativeClasses, true, args);
    }

    /**
     * @param withCompilerPatch whether to patch chronicle-compiler's CompilerUtils as the runtime image has it
     */
    static ProcessBuilder command(List<String> extraJvm, boolean withChronicleOptions, boolean withNativeClasses,
            boolean withCompilerPatch, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> modulePath = childModulePath();
        String testClasses = split(System.getProperty("java.class.path", "")).stream()
                .filter(e -> !e.endsWith(".jar")).findFirst()
                .orElseThrow(() -> new IllegalStateException("test classes not found on the class path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx128m");
        cmd.add("-Dchronicle.analytics.disable=true");
        if (withChronicleOptions) {
            String opts = System.getProperty("dogama.chronicle.jvm");
            if (opts == null || opts.isBlank()) {
                throw new IllegalStateException("system property dogama.chronicle.jvm is not set (surefire config)");
            }
            cmd.addAll(Arrays.asList(opts.trim().split("\\s+")));
        }
        // Chronicle (automatic modules) uses slf4j, an explicit module that nothing here requires.
        cmd.add("--add-modules=org.slf4j");
        if (withNativeClasses) {
            cmd.add("--patch-module");
            cmd.add("chronicle.map=" + nativeClasses());
        }
        if (withCompilerPatch) {
            cmd.addAll(compilerPatch());
        }
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

    /** The build's generated classes, or generated now if the build step did not run (an IDE run). */
    private static synchronized Path nativeClasses() {
        Path out = ChronicleNativeClasses.buildOutput();
        if (!Files.isRegularFile(out.resolve(ChronicleNativeClasses.NATIVE_CLASS.replace('.', '/') + ".class"))) {
            try {
                ChronicleNativeClasses.generate(out);
            } catch (Exception e) {
                throw new IllegalStateException("cannot generate the Chronicle native class", e);
            }
        }
        return out;
    }

    /**
     * @return options that patch chronicle-compiler's {@code CompilerUtils} as the runtime image has it
     *         (no demand for javac: jlink/src/build/java/ChronicleCompilerPatch.java), made by the build
     */
    private static List<String> compilerPatch() {
        String dir = System.getProperty("registry.chronicle.compiler");
        if (dir == null || !Files.isRegularFile(Path.of(dir, "net/openhft/compiler/CompilerUtils.class"))) {
            throw new IllegalStateException("the patched CompilerUtils is missing (the build's chronicle-compiler-patch"
                    + " step makes it): " + dir);
        }
        return List.of("--patch-module", "net.openhft.compiler=" + dir);
    }

    /**
     * @return a {@code --limit-modules} option that makes every module of the module path observable but,
     *         of the JDK, only {@code java.se} and {@code jdk.unsupported}: like a jlink image built without
     *         {@code jdk.compiler} (otherwise service binding resolves it from the full JDK)
     */
    static String limitModulesWithoutJdkCompiler() {
        String names = ModuleFinder.of(childModulePath().stream().map(Path::of).toArray(Path[]::new)).findAll().stream()
                .map(m -> m.descriptor().name()).sorted().collect(Collectors.joining(","));
        return "--limit-modules=java.se,jdk.unsupported," + names;
    }

    private static List<String> split(String path) {
        return Arrays.stream(path.split(File.pathSeparator)).filter(s -> !s.isBlank()).toList();
    }
}
