// net.openhft:affinity: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module affinity {
    requires com.sun.jna.platform;
    requires java.logging;
    requires java.management;
    requires org.slf4j;

    requires transitive com.sun.jna;

    exports net.openhft.affinity;
    exports net.openhft.affinity.impl;
    exports net.openhft.affinity.lockchecker;
    exports net.openhft.affinity.main;
    exports net.openhft.ticker;
    exports net.openhft.ticker.impl;
    exports software.chronicle.enterprise.internals.impl;
}
