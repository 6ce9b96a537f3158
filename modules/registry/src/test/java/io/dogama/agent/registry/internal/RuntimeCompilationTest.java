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
        String log = runProbe(true, "header-class");
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
        String log = runProbe(false, "no-header-class");
        assertFalse(log.contains("probe ok"), "expected the runtime compilation to fail on the module path");
        assertTrue(log.contains("CachedCompiler.compileFromJava"), "expected a javac failure:\n" + tail(log));
        assertTrue(log.contains("registry: cannot create registry.dat"), "expected a registry start-up error");
    }

    @Test
    void withoutJdkCompilerOnlyThePatchedCompilerUtilsLetsTheRegistryStart() throws Exception {
        // chronicle-values initializes chronicle-compiler's CompilerUtils, though nothing is compiled; its static
        // initializer makes ClassLoader.defineClass accessible and demands javac. The image's build patches both
        // out (ChronicleCompilerPatch), so the image opens nothing of java.lang to it and has no jdk.compiler.
        String unpatched = run(optionsWithoutJdkCompiler(), false, true, false, "unpatched");
        assertTrue(unpatched.contains("jdk.compiler=absent"), "jdk.compiler was resolved after all:\n" + tail(unpatched));
        assertFalse(unpatched.contains("probe ok"), "the unpatched CompilerUtils initialized without java.lang opened");
        assertTrue(unpatched.contains("InaccessibleObjectException") && unpatched.contains("defineClass"),
                "unexpected failure of the unpatched CompilerUtils:\n" + tail(unpatched));

        List<String> opened = optionsWithoutJdkCompiler();
        opened.add("--add-opens=java.base/java.lang=net.openhft.compiler");
        String unpatchedOpened = run(opened, false, true, false, "unpatched-opened");
        assertFalse(unpatchedOpened.contains("probe ok"), "the unpatched CompilerUtils initialized without javac");
        assertTrue(unpatchedOpened.contains("ClassNotFoundException: com.sun.tools.javac.api.JavacTool"),
                "unexpected failure of the unpatched CompilerUtils without javac:\n" + tail(unpatchedOpened));

        String patched = run(optionsWithoutJdkCompiler(), false, true, true, "patched");
        assertTrue(patched.contains("jdk.compiler=absent"), "jdk.compiler was resolved after all:\n" + tail(patched));
        assertTrue(patched.contains("probe ok") && patched.contains("reopen ok"),
                "the registry does not work with the patched CompilerUtils:\n" + tail(patched));
    }

    @Test
    void withoutJdkCompilerAClassChronicleWouldCompileStopsTheRegistryAndNothingIsCompiled() throws Exception {
        // What the image does when Chronicle wants a class made at run time (here the header class, left out):
        // no javac, so the registry does not start, rather than running a compiler inside the agent.
        List<String> options = optionsWithoutJdkCompiler();
        options.add("-Xlog:class+load=info");
        String log = run(options, false, false, true, "no-header-class");
        assertTrue(log.contains("jdk.compiler=absent"), "jdk.compiler was resolved after all:\n" + tail(log));
        assertFalse(log.contains("probe ok"), "the registry started without the header class and without javac");
        assertTrue(log.contains("registry: cannot create registry.dat"), "expected a registry start-up error:\n" + tail(log));
        // The cause: the compilation found no compiler (the patched reset() left it null), not anything else.
        assertTrue(log.contains("\"net.openhft.compiler.CompilerUtils.s_compiler\" is null")
                && log.contains("CachedCompiler.loadFromJava"), "expected the compilation to find no javac:\n" + tail(log));
        assertFalse(log.contains("com.sun.tools.javac."), "a javac class was loaded");
        assertFalse(GENERATED.matcher(log).find(), "a class was generated at run time");
    }

    /** The root POM's Chronicle options, in a JVM whose observable JDK modules are those of an image without javac. */
    private static List<String> optionsWithoutJdkCompiler() {
        List<String> options = new ArrayList<>(Arrays.asList(System.getProperty("dogama.chronicle.jvm").trim().split("\\s+")));
        assertFalse(String.join(" ", options).contains("jdk.compiler"), "the Chronicle options name jdk.compiler");
        options.add(ForkedJvm.limitModulesWithoutJdkCompiler());
        // chronicle-values' ValueModel still links javax.tools types (java.compiler, the API only, 50 KB).
        options.add("--add-modules=java.compiler");
        return options;
    }

    private String runProbe(boolean nativeClasses, String name) throws Exception {
        return run(List.of("-Xlog:class+load=info"), true, nativeClasses, true, name);
    }

    /**
     * @param nativeClasses  whether the build-time generated header class is patched into chronicle.map
     * @param compilerPatch  whether CompilerUtils is patched as the image's build patches it
     */
    private String run(List<String> jvm, boolean chronicleOptions, boolean nativeClasses, boolean compilerPatch,
            String name) throws Exception {
        Path log = dir.resolve(name + ".log");
        Path data = Files.createDirectory(dir.resolve(name));
        return ForkedJvm.run(ForkedJvm.command(jvm, chronicleOptions, nativeClasses, compilerPatch, "probe",
                data.toString()), log).output();
    }

    private static String tail(String log) {
        return log.substring(Math.max(0, log.length() - 4000));
    }
}
