// net.openhft:chronicle-core: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.core {
    requires affinity;
    // java.desktop only for the java.beans/AWT types of code paths the agent never runs; static keeps
    // the module (about 10 MB) out of the runtime image. A path that needed it fails with NoClassDefFoundError.
    requires static java.desktop;
    requires java.logging;
    requires java.management;
    requires java.naming;
    requires posix;

    requires transitive jdk.unsupported;
    requires transitive org.slf4j;

    // jdeps does not see ServiceLoader look-ups; without these ChronicleInit and CleanerServiceLocator
    // throw ServiceConfigurationError in a named module.
    uses net.openhft.chronicle.core.ChronicleInitRunnable;
    uses net.openhft.chronicle.core.cleaner.spi.ByteBufferCleanerService;

    exports net.openhft.chronicle.core;
    exports net.openhft.chronicle.core.analytics;
    exports net.openhft.chronicle.core.annotation;
    exports net.openhft.chronicle.core.announcer;
    exports net.openhft.chronicle.core.cleaner;
    exports net.openhft.chronicle.core.cleaner.spi;
    exports net.openhft.chronicle.core.cooler;
    exports net.openhft.chronicle.core.domestic;
    exports net.openhft.chronicle.core.internal;
    exports net.openhft.chronicle.core.internal.analytics;
    exports net.openhft.chronicle.core.internal.announcer;
    exports net.openhft.chronicle.core.internal.cleaner;
    exports net.openhft.chronicle.core.internal.invariant.ints;
    exports net.openhft.chronicle.core.internal.invariant.longs;
    exports net.openhft.chronicle.core.internal.pom;
    exports net.openhft.chronicle.core.internal.util;
    exports net.openhft.chronicle.core.io;
    exports net.openhft.chronicle.core.onoes;
    exports net.openhft.chronicle.core.pom;
    exports net.openhft.chronicle.core.pool;
    exports net.openhft.chronicle.core.scoped;
    exports net.openhft.chronicle.core.shutdown;
    exports net.openhft.chronicle.core.threads;
    exports net.openhft.chronicle.core.time;
    exports net.openhft.chronicle.core.util;
    exports net.openhft.chronicle.core.values;

    provides net.openhft.chronicle.core.cleaner.spi.ByteBufferCleanerService with
        net.openhft.chronicle.core.internal.cleaner.Jdk9ByteBufferCleanerService,
        net.openhft.chronicle.core.internal.cleaner.ReflectionBasedByteBufferCleanerService;
}
