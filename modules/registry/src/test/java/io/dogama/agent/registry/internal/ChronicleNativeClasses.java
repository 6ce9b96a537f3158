package io.dogama.agent.registry.internal;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.PrintWriter;
import java.util.spi.ToolProvider;

/**
 * Build-time generation of the one class Chronicle Map would otherwise compile at run time for this
 * registry: {@code net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native}, the flyweight of the
 * map's global header, which EVERY persisted Chronicle map needs whatever its key and value types. On
 * the module path (and in a jlink image) Chronicle's in-process javac cannot compile it (it compiles
 * against the class path, which is empty there), so it must be present in the {@code chronicle.map}
 * module beforehand: Chronicle tries {@code ClassLoader.loadClass} first and only compiles when that
 * fails.
 *
 * <p>Runs on the class path (chronicle-values must be readable reflectively): it asks chronicle-values'
 * own generator for the source, exactly what Chronicle would compile, and compiles it with javac into
 * {@code <out>/net/openhft/chronicle/hash/}. Run by the build ({@code process-test-classes}, see the
 * module POM) into {@code target/chronicle-native}; the forked-JVM tests patch it into
 * {@code chronicle.map}, as the runtime image's build adds its own copy to the chronicle-map jar.
 */
final class ChronicleNativeClasses {
    static final String VALUE_INTERFACE = "net.openhft.chronicle.hash.VanillaGlobalMutableState";
    static final String NATIVE_CLASS = VALUE_INTERFACE + "$$Native";

    private ChronicleNativeClasses() {
    }

    public static void main(String[] args) throws Exception {
        generate(Path.of(args[0]));
    }

    /** The build's output directory (surefire passes it), else {@code target/chronicle-native}. */
    static Path buildOutput() {
        return Path.of(System.getProperty("registry.chronicle.native", "target/chronicle-native")).toAbsolutePath();
    }

    /** @return the directory holding the compiled class(es), a package root for {@code --patch-module} */
    static Path generate(Path out) throws Exception {
        System.setProperty("chronicle.analytics.disable", "true");
        Class<?> valueType = Class.forName(VALUE_INTERFACE);
        Class<?> modelClass = Class.forName("net.openhft.chronicle.values.ValueModel");
        Object model = modelClass.getMethod("acquire", Class.class).invoke(null, valueType);
        Class<?> generators = Class.forName("net.openhft.chronicle.values.Generators");
        Method gen = generators.getDeclaredMethod("generateNativeClass", modelClass, String.class);
        gen.setAccessible(true);
        String simpleName = NATIVE_CLASS.substring(NATIVE_CLASS.lastIndexOf('.') + 1);
        String source = (String) gen.invoke(null, model, simpleName);

        Files.createDirectories(out);
        Path src = Files.createTempDirectory("chronicle-native-src");
        Path unit = src.resolve(simpleName + ".java");
        Files.writeString(unit, source);
        // java.util.spi.ToolProvider: javac without a compile-time dependency on java.compiler.
        ToolProvider javac = ToolProvider.findFirst("javac")
                .orElseThrow(() -> new IOException("javac is not available (module jdk.compiler)"));
        StringWriter diagnostics = new StringWriter();
        PrintWriter pw = new PrintWriter(diagnostics);
        // Whatever the caller runs on (a surefire module path or a plain class path): compile against both.
        String classPath = System.getProperty("java.class.path", "") + File.pathSeparator
                + System.getProperty("jdk.module.path", "");
        int rc = javac.run(pw, pw, "-d", out.toString(), "-classpath", classPath,
                "-proc:none", "-nowarn", "-g", unit.toString());
        Files.delete(unit);
        Files.delete(src);
        if (rc != 0) {
            throw new IOException("javac failed for " + NATIVE_CLASS + ":\n" + diagnostics);
        }
        Path classFile = out.resolve(NATIVE_CLASS.replace('.', File.separatorChar) + ".class");
        if (!Files.isRegularFile(classFile)) {
            throw new IOException("javac did not write " + classFile);
        }
        return out;
    }
}
