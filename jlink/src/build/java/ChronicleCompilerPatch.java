import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.MethodModel;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.ZipFile;

/**
 * Build step of the runtime image (run by jlink/pom.xml with the source launcher; the registry's tests run
 * it too): chronicle-compiler's {@code CompilerUtils} without its demand for javac, so that the image needs
 * no {@code jdk.compiler}.
 *
 * <p>{@code CompilerUtils}' static initializer calls {@code reset()}, which asks
 * {@code ToolProvider.getSystemJavaCompiler()} for javac and, when there is none, looks up
 * {@code com.sun.tools.javac.api.JavacTool} by name and throws an {@code AssertionError} when that fails
 * too. chronicle-values touches the class whenever it describes a value type, so Chronicle Map cannot start
 * without javac, although the one class it would compile for the registry is made at build time
 * ({@code ChronicleNativeClasses}) and javac never runs in the agent. The patched {@code reset()} keeps what
 * {@code ToolProvider} answers, {@code null} in the image: a compilation Chronicle might still attempt then
 * fails at once, and the registry does not start, instead of a compiler running inside a daemon that holds
 * the Docker socket (the registry's {@code RuntimeCompilationTest}). The fallback by name is for Java 8's
 * tools.jar.
 *
 * <p>Only the class this build was written against is patched: its SHA-256 is pinned below, and a new
 * chronicle-compiler fails the build until its {@code reset()} has been read again.
 *
 * <p>Arguments: the output directory for the patched class, then the class path that holds the original.
 */
public final class ChronicleCompilerPatch {
    static final String CLASS_FILE = "net/openhft/compiler/CompilerUtils.class";
    /** {@code CompilerUtils.class} of net.openhft:compiler 2026.2. */
    static final String ORIGINAL_SHA256 = "4fb20f5f650cc2c2e9eec1498f4c6a3ed795bcdf60688487c1052d7211092961";

    private static final ClassDesc COMPILER_UTILS = ClassDesc.of("net.openhft.compiler.CompilerUtils");
    private static final ClassDesc JAVA_COMPILER = ClassDesc.of("javax.tools.JavaCompiler");
    private static final ClassDesc TOOL_PROVIDER = ClassDesc.of("javax.tools.ToolProvider");

    private ChronicleCompilerPatch() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ChronicleCompilerPatch OUTPUT_DIR CLASS_PATH");
        }
        byte[] original = read(args[1]);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(original));
        if (!sha.equals(ORIGINAL_SHA256)) {
            throw new IllegalStateException(CLASS_FILE + " is not the one this patch was written against (SHA-256 "
                    + sha + "): read its reset() again, then update " + ChronicleCompilerPatch.class.getSimpleName());
        }
        Path out = Path.of(args[0]).resolve(CLASS_FILE);
        Files.createDirectories(out.getParent());
        Files.write(out, patch(original));
    }

    /** The class with {@code reset()} replaced by {@code s_compiler = ToolProvider.getSystemJavaCompiler()}. */
    static byte[] patch(byte[] original) {
        ClassFile cf = ClassFile.of();
        ClassModel model = cf.parse(original);
        int[] replaced = {0};
        byte[] patched = cf.transformClass(model, ClassTransform.dropping(e -> e instanceof MethodModel m && isReset(m))
                .andThen(ClassTransform.endHandler(b -> b.withMethodBody("reset", MethodTypeDesc.of(ClassDesc.ofDescriptor("V")),
                        ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC, code -> {
                            replaced[0]++;
                            code.invokestatic(TOOL_PROVIDER, "getSystemJavaCompiler", MethodTypeDesc.of(JAVA_COMPILER));
                            code.putstatic(COMPILER_UTILS, "s_compiler", JAVA_COMPILER);
                            code.return_();
                        }))));
        long resets = model.methods().stream().filter(ChronicleCompilerPatch::isReset).count();
        if (resets != 1 || replaced[0] != 1) {
            throw new IllegalStateException("expected one private static reset()V in " + CLASS_FILE + ", found " + resets);
        }
        return patched;
    }

    private static boolean isReset(MethodModel m) {
        return m.methodName().equalsString("reset") && m.methodType().equalsString("()V")
                && m.flags().flagsMask() == (ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC);
    }

    private static byte[] read(String classPath) throws IOException {
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p) && Files.isRegularFile(p.resolve(CLASS_FILE))) {
                return Files.readAllBytes(p.resolve(CLASS_FILE));
            }
            if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
                try (ZipFile jar = new ZipFile(p.toFile())) {
                    var e = jar.getEntry(CLASS_FILE);
                    if (e != null) {
                        try (var in = jar.getInputStream(e)) {
                            return in.readAllBytes();
                        }
                    }
                }
            }
        }
        throw new IOException(CLASS_FILE + " is not on the class path " + classPath);
    }
}
