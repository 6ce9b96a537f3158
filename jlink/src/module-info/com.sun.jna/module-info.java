// net.java.dev.jna:jna: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module com.sun.jna {
    requires java.logging;

    // java.desktop only for the AWT types (Native.getWindowID...) of code paths the agent never runs; static keeps
    // the module (about 10 MB) out of the runtime image. A path that needed it fails with NoClassDefFoundError.
    requires static transitive java.desktop;

    exports com.sun.jna;
    exports com.sun.jna.internal;
    exports com.sun.jna.ptr;
    exports com.sun.jna.win32;
}
