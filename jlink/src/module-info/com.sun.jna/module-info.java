// net.java.dev.jna:jna: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module com.sun.jna {
    requires java.logging;

    requires transitive java.desktop;

    exports com.sun.jna;
    exports com.sun.jna.internal;
    exports com.sun.jna.ptr;
    exports com.sun.jna.win32;
}
