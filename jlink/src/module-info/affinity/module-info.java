// net.openhft:affinity: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module affinity {
    // JNA (com.sun.jna, com.sun.jna.platform) only for the native affinity implementations; static keeps JNA
    // out of the runtime image. Affinity.isJNAAvailable() looks com.sun.jna.Platform up with Class.forName and,
    // on ClassNotFoundException, picks NullAffinity (the agent pins no thread to a CPU). Not transitive: no
    // module of the image uses a JNA type through affinity.
    requires static com.sun.jna.platform;
    requires java.logging;
    requires java.management;
    requires org.slf4j;

    requires static com.sun.jna;

    exports net.openhft.affinity;
    exports net.openhft.affinity.impl;
    exports net.openhft.affinity.lockchecker;
    exports net.openhft.affinity.main;
    exports net.openhft.ticker;
    exports net.openhft.ticker.impl;
    exports software.chronicle.enterprise.internals.impl;
}
