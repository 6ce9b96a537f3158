import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.MethodModel;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.ZipFile;

/**
 * Build step of the runtime image (run by jlink/pom.xml with the source launcher; the registry's tests run
 * it too): chronicle-compiler's {@code CompilerUtils} without its demand for javac and without its reach into
 * {@code java.lang}, so that the image needs no {@code jdk.compiler} and opens nothing of {@code java.lang}
 * to that library.
 *
 * <p>chronicle-values initializes {@code CompilerUtils} whenever it describes a value type, so Chronicle Map
 * cannot start without it, although the one class Chronicle would compile for the registry is made at build
 * time ({@code ChronicleNativeClasses}) and nothing is ever compiled in the agent. Two parts of its static
 * initializer exist only for compiling:
 * <ul>
 *   <li>{@code reset()} asks {@code ToolProvider.getSystemJavaCompiler()} for javac and, when there is none,
 *       looks up {@code com.sun.tools.javac.api.JavacTool} by name (Java 8's tools.jar) and throws an
 *       {@code AssertionError} when that fails too. The patched {@code reset()} keeps what
 *       {@code ToolProvider} answers: {@code null} in the image.</li>
 *   <li>{@code DEFINE_CLASS_METHOD}: {@code ClassLoader.defineClass} made accessible (with
 *       {@code java.lang} opened to the library), to define compiled classes in any class loader. The
 *       patched initializer leaves it {@code null}.</li>
 * </ul>
 * A compilation Chronicle might still attempt then fails at once, and the registry does not start, instead of
 * a compiler running inside a daemon that holds the Docker socket (the registry's
 * {@code RuntimeCompilationTest}). The rest of the initializer is unchanged.
 *
 * <p>Only the class this build was written against is patched: its SHA-256 is pinned below, and a new
 * chronicle-compiler fails the build until its static initializer has been read again.
 *
 * <p>Arguments: the output directory for the patched class, then the class path that holds the original.
 */
public final class ChronicleCompilerPatch {
    static final String CLASS_FILE = "net/openhft/compiler/CompilerUtils.class";
    /** {@code CompilerUtils.class} of net.openhft:compiler 2026.2. */
    static final String ORIGINAL_SHA256 = "4fb20f5f650cc2c2e9eec1498f4c6a3ed795bcdf60688487c1052d7211092961";

    private static final ClassDesc COMPILER_UTILS = ClassDesc.of("net.openhft.compiler.CompilerUtils");
    private static final ClassDesc CACHED_COMPILER = ClassDesc.of("net.openhft.compiler.CachedCompiler");
    private static final ClassDesc JAVA_COMPILER = ClassDesc.of("javax.tools.JavaCompiler");
    private static final ClassDesc TOOL_PROVIDER = ClassDesc.of("javax.tools.ToolProvider");
    private static final ClassDesc LOGGER_FACTORY = ClassDesc.of("org.slf4j.LoggerFactory");
    private static final ClassDesc LOGGER = ClassDesc.of("org.slf4j.Logger");
    private static final ClassDesc CHARSET = ClassDesc.of("java.nio.charset.Charset");
    private static final ClassDesc FILE = ClassDesc.of("java.io.File");
    private static final MethodTypeDesc VOID = MethodTypeDesc.of(ConstantDescs.CD_void);
    private static final int PRIVATE_STATIC = ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC;

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
                    + sha + "): read its static initializer again, then update "
                    + ChronicleCompilerPatch.class.getSimpleName());
        }
        Path out = Path.of(args[0]).resolve(CLASS_FILE);
        Files.createDirectories(out.getParent());
        Files.write(out, patch(original));
    }

    /**
     * The class with {@code reset()} and {@code <clinit>} replaced (see the class comment). The pinned SHA-256 is
     * what guarantees the class has both, in the form this patch was written against.
     */
    static byte[] patch(byte[] original) {
        ClassFile cf = ClassFile.of();
        ClassTransform drop = ClassTransform.dropping(e -> e instanceof MethodModel m && (isReset(m) || isClassInit(m)));
        return cf.transformClass(cf.parse(original), drop.andThen(ClassTransform.endHandler(b -> {
            b.withMethodBody("reset", VOID, PRIVATE_STATIC, ChronicleCompilerPatch::reset);
            b.withMethodBody(ConstantDescs.CLASS_INIT_NAME, VOID, ClassFile.ACC_STATIC, ChronicleCompilerPatch::classInit);
        })));
    }

    /** {@code s_compiler = ToolProvider.getSystemJavaCompiler();} */
    private static void reset(CodeBuilder code) {
        code.invokestatic(TOOL_PROVIDER, "getSystemJavaCompiler", MethodTypeDesc.of(JAVA_COMPILER));
        code.putstatic(COMPILER_UTILS, "s_compiler", JAVA_COMPILER);
        code.return_();
    }

    /** The original static initializer without the {@code DEFINE_CLASS_METHOD} part, in the original order. */
    private static void classInit(CodeBuilder code) {
        code.iconst_0();
        code.anewarray(COMPILER_UTILS);
        code.putstatic(COMPILER_UTILS, "$VALUES", COMPILER_UTILS.arrayType());
        code.invokestatic(COMPILER_UTILS, "isDebug", MethodTypeDesc.of(ConstantDescs.CD_boolean));
        code.putstatic(COMPILER_UTILS, "DEBUGGING", ConstantDescs.CD_boolean);
        code.new_(CACHED_COMPILER);
        code.dup();
        code.aconst_null();
        code.aconst_null();
        code.invokespecial(CACHED_COMPILER, ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, FILE, FILE));
        code.putstatic(COMPILER_UTILS, "CACHED_COMPILER", CACHED_COMPILER);
        code.ldc(COMPILER_UTILS);
        code.invokestatic(LOGGER_FACTORY, "getLogger", MethodTypeDesc.of(LOGGER, ConstantDescs.CD_Class));
        code.putstatic(COMPILER_UTILS, "LOGGER", LOGGER);
        code.ldc("UTF-8");
        code.invokestatic(CHARSET, "forName", MethodTypeDesc.of(CHARSET, ConstantDescs.CD_String));
        code.putstatic(COMPILER_UTILS, "UTF_8", CHARSET);
        code.invokestatic(COMPILER_UTILS, "reset", VOID);
        code.return_();
    }

    private static boolean isReset(MethodModel m) {
        return m.methodName().equalsString("reset") && m.methodType().equalsString("()V")
                && m.flags().flagsMask() == PRIVATE_STATIC;
    }

    private static boolean isClassInit(MethodModel m) {
        return m.methodName().equalsString(ConstantDescs.CLASS_INIT_NAME) && m.methodType().equalsString("()V");
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
