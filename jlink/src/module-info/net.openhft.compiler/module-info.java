// net.openhft:compiler: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module net.openhft.compiler {
    requires java.management;
    requires jdk.unsupported;
    requires org.slf4j;

    requires transitive java.compiler;

    // Static: javac is not in the image. The build patches CompilerUtils so that its static initializer
    // no longer demands it, nor reaches into java.lang (src/build/java/ChronicleCompilerPatch.java); the
    // one class Chronicle would compile for the registry is made at build time
    // (src/build/java/ChronicleNativeClasses.java).
    requires static jdk.compiler;

    exports net.openhft.compiler;
    exports net.openhft.compiler.internal;
}
