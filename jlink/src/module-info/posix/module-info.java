// net.openhft:posix: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module posix {
    requires org.jnrproject.constants;
    requires org.slf4j;

    requires transitive com.sun.jna;
    requires transitive jdk.unsupported;
    requires transitive org.jnrproject.ffi;

    exports net.openhft.posix;
    exports net.openhft.posix.internal;
    exports net.openhft.posix.internal.core;
    exports net.openhft.posix.internal.jna;
    exports net.openhft.posix.internal.jnr;
    exports net.openhft.posix.internal.noop;
    exports net.openhft.posix.internal.raw;
}
