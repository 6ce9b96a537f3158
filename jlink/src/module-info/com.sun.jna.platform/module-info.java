// net.java.dev.jna:jna-platform: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module com.sun.jna.platform {
    requires java.logging;

    requires transitive com.sun.jna;
    // java.desktop only for the AWT and drag-and-drop types of code paths the agent never runs; static keeps
    // the module (about 10 MB) out of the runtime image. A path that needed it fails with NoClassDefFoundError.
    requires static transitive java.datatransfer;
    requires static transitive java.desktop;

    exports com.sun.jna.platform;
    exports com.sun.jna.platform.dnd;
    exports com.sun.jna.platform.linux;
    exports com.sun.jna.platform.mac;
    exports com.sun.jna.platform.unix;
    exports com.sun.jna.platform.unix.solaris;
    exports com.sun.jna.platform.win32;
    exports com.sun.jna.platform.win32.COM;
    exports com.sun.jna.platform.win32.COM.tlb;
    exports com.sun.jna.platform.win32.COM.tlb.imp;
    exports com.sun.jna.platform.win32.COM.util;
    exports com.sun.jna.platform.win32.COM.util.annotation;
    exports com.sun.jna.platform.wince;
}
