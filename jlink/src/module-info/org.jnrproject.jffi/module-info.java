// com.github.jnr:jffi: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module org.jnrproject.jffi {
    requires java.logging;

    requires transitive jdk.unsupported;

    // StubLoader reads libjffi from the class loader (jni/<arch>-<os>/); the jar holding it must be in
    // the module graph, and nothing names it statically.
    requires org.jnrproject.jffi.nativelibs;

    exports com.kenai.jffi;
    exports com.kenai.jffi.internal;
}
