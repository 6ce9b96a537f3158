// net.openhft:compiler: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module net.openhft.compiler {
    requires java.management;
    requires jdk.unsupported;
    requires org.slf4j;

    requires transitive java.compiler;

    // CompilerUtils' static initializer looks javac up by name (com.sun.tools.javac.api.JavacTool)
    // and fails without it, even when every class it would compile is already in the jar (see
    // src/build/java/ChronicleNativeClasses.java). Naming it here puts it in the image.
    requires jdk.compiler;

    exports net.openhft.compiler;
    exports net.openhft.compiler.internal;
}
