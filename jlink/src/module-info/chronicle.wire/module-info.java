// net.openhft:chronicle-wire: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.wire {
    requires java.compiler;
    requires java.naming;
    // java.sql (which brings java.xml) only for converters of java.sql dates that the registry's
    // String/byte[] map never uses; static keeps both out of the runtime image.
    requires static java.sql;

    requires transitive chronicle.bytes;
    requires transitive chronicle.core;
    requires transitive chronicle.threads;
    requires transitive net.openhft.compiler;

    exports net.openhft.chronicle.wire;
    exports net.openhft.chronicle.wire.converter;
    exports net.openhft.chronicle.wire.domestic;
    exports net.openhft.chronicle.wire.domestic.extractor;
    exports net.openhft.chronicle.wire.domestic.reduction;
    exports net.openhft.chronicle.wire.domestic.stream;
    exports net.openhft.chronicle.wire.internal;
    exports net.openhft.chronicle.wire.internal.extractor;
    exports net.openhft.chronicle.wire.internal.fieldinfo;
    exports net.openhft.chronicle.wire.internal.reduction;
    exports net.openhft.chronicle.wire.internal.stream;
    exports net.openhft.chronicle.wire.utils;
}
