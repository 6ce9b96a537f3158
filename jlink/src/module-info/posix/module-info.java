// net.openhft:posix: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module posix {
    // JNR (org.jnrproject.*) and JNA only for the native bindings (internal.jnr, internal.jna); static keeps
    // both out of the runtime image. The registry sets the no-op binding before Chronicle loads
    // (io.dogama.agent.registry.internal.ChronicleStartup), so no native binding is ever looked up; a path
    // that needed one would fail with NoClassDefFoundError.
    requires static org.jnrproject.constants;
    requires org.slf4j;

    requires static com.sun.jna;
    requires transitive jdk.unsupported;
    requires static org.jnrproject.ffi;

    exports net.openhft.posix;
    exports net.openhft.posix.internal;
    exports net.openhft.posix.internal.core;
    exports net.openhft.posix.internal.jna;
    exports net.openhft.posix.internal.jnr;
    exports net.openhft.posix.internal.noop;
    exports net.openhft.posix.internal.raw;
}
