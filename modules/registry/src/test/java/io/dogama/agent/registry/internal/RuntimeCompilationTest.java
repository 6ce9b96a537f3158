package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether Chronicle compiles classes at run time for this registry, checked in a JVM laid out like the
 * runtime image (every Chronicle jar a named module) with class loading logged.
 */
class RuntimeCompilationTest {
    /** Loaded only when javac really compiles (code generation), not when Chronicle merely sets javac up. */
    private static final String JAVAC_CODE_GENERATOR = "com.sun.tools.javac.jvm.Gen ";
    private static final Pattern GENERATED = Pattern.compile("\\] (\\S+\\$\\$(?:Native|Heap)\\S*) source: (\\S+)");

    @TempDir
    Path dir;

    @Test
    void withThePregeneratedClassNothingIsCompiledAtRunTime() throws Exception {
        String log = runProbe(true, "patched");
        assertTrue(log.contains("probe ok") && log.contains("reopen ok"), "the probe failed:\n" + tail(log));
        assertFalse(log.contains(JAVAC_CODE_GENERATOR), "javac generated code at run time");
        Matcher m = GENERATED.matcher(log);
        int generated = 0;
        while (m.find()) {
            generated++;
            assertTrue(m.group(1).equals(ChronicleNativeClasses.NATIVE_CLASS)
                    && m.group(2).contains("chronicle-native"),
                    "a generated class that is not the pre-generated one: " + m.group(1) + " from " + m.group(2));
        }
        assertTrue(generated == 1, "the pre-generated class was not used (" + generated + " generated classes)");
    }

    @Test
    void withoutItChronicleTriesToCompileAndFailsOnTheModulePath() throws Exception {
        String log = runProbe(false, "unpatched");
        assertFalse(log.contains("probe ok"), "expected the runtime compilation to fail on the module path");
        assertTrue(log.contains("CachedCompiler.compileFromJava"), "expected a javac failure:\n" + tail(log));
        assertTrue(log.contains("registry: cannot create registry.dat"), "expected a registry start-up error");
    }

    @Test
    void jdkCompilerMustStillBeInTheImageThoughNothingIsCompiled() throws Exception {
        // The root POM's options without the two that exist only for javac.
        List<String> options = Arrays.stream(System.getProperty("dogama.chronicle.jvm").trim().split("\\s+"))
                .filter(o -> !o.startsWith("--add-exports=jdk.compiler/"))
                .map(o -> o.startsWith("--add-modules=") ? o.replace(",jdk.compiler", "").replace("jdk.compiler,", "") : o)
                .collect(Collectors.toCollection(ArrayList::new));
        options.add(ForkedJvm.limitModulesWithoutJdkCompiler());
        // chronicle-values' ValueModel still links javax.tools types (java.compiler, the API only, 50 KB).
        options.add("--add-modules=java.compiler");
        assertFalse(String.join(" ", options).contains("jdk.compiler"), "options still name jdk.compiler");
        String log = run(options, false, true, "nocompiler");
        assertTrue(log.contains("jdk.compiler=absent"), "jdk.compiler was resolved after all:\n" + tail(log));
        // chronicle-compiler's CachedCompiler instantiates javac's JavacTool eagerly (ValueModel's constructor),
        // so the module must be linked even when the pre-generated class means it never compiles anything.
        assertFalse(log.contains("probe ok"), "the registry now works without jdk.compiler: drop it from the image");
        assertTrue(log.contains("ClassNotFoundException: com.sun.tools.javac.api.JavacTool"),
                "unexpected failure without jdk.compiler:\n" + tail(log));
    }

    private String runProbe(boolean patched, String name) throws Exception {
        return run(List.of("-Xlog:class+load=info"), true, patched, name);
    }

    private String run(List<String> jvm, boolean chronicleOptions, boolean patched, String name) throws Exception {
        Path log = dir.resolve(name + ".log");
        Path data = Files.createDirectory(dir.resolve(name));
        return ForkedJvm.run(ForkedJvm.command(jvm, chronicleOptions, patched, "probe", data.toString()), log)
                .output();
    }

    private static String tail(String log) {
        return log.substring(Math.max(0, log.length() - 4000));
    }
}
