// net.openhft:chronicle-bytes: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.bytes {
    requires org.slf4j;

    requires transitive chronicle.core;
    requires transitive posix;

    exports net.openhft.chronicle.bytes;
    exports net.openhft.chronicle.bytes.algo;
    exports net.openhft.chronicle.bytes.domestic;
    exports net.openhft.chronicle.bytes.internal;
    exports net.openhft.chronicle.bytes.internal.migration;
    exports net.openhft.chronicle.bytes.pool;
    exports net.openhft.chronicle.bytes.ref;
    exports net.openhft.chronicle.bytes.render;
    exports net.openhft.chronicle.bytes.util;
}
