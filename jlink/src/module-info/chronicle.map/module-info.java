// net.openhft:chronicle-map: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.map {
    requires chronicle.threads;
    requires org.slf4j;
    requires posix;

    requires transitive chronicle.algorithms;
    requires transitive chronicle.bytes;
    requires transitive chronicle.core;
    requires transitive chronicle.values;
    requires transitive chronicle.wire;

    exports net.openhft.chronicle.hash;
    exports net.openhft.chronicle.hash.impl;
    exports net.openhft.chronicle.hash.impl.stage.data.bytes;
    exports net.openhft.chronicle.hash.impl.stage.entry;
    exports net.openhft.chronicle.hash.impl.stage.hash;
    exports net.openhft.chronicle.hash.impl.stage.iter;
    exports net.openhft.chronicle.hash.impl.stage.query;
    exports net.openhft.chronicle.hash.impl.stage.replication;
    exports net.openhft.chronicle.hash.impl.util;
    exports net.openhft.chronicle.hash.impl.util.jna;
    exports net.openhft.chronicle.hash.impl.util.math;
    exports net.openhft.chronicle.hash.internal;
    exports net.openhft.chronicle.hash.locks;
    exports net.openhft.chronicle.hash.replication;
    exports net.openhft.chronicle.hash.serialization;
    exports net.openhft.chronicle.hash.serialization.impl;
    exports net.openhft.chronicle.map;
    exports net.openhft.chronicle.map.impl;
    exports net.openhft.chronicle.map.impl.ret;
    exports net.openhft.chronicle.map.impl.stage.data;
    exports net.openhft.chronicle.map.impl.stage.data.bytes;
    exports net.openhft.chronicle.map.impl.stage.data.instance;
    exports net.openhft.chronicle.map.impl.stage.entry;
    exports net.openhft.chronicle.map.impl.stage.input;
    exports net.openhft.chronicle.map.impl.stage.iter;
    exports net.openhft.chronicle.map.impl.stage.map;
    exports net.openhft.chronicle.map.impl.stage.query;
    exports net.openhft.chronicle.map.impl.stage.replication;
    exports net.openhft.chronicle.map.impl.stage.ret;
    exports net.openhft.chronicle.map.internal;
    exports net.openhft.chronicle.map.locks;
    exports net.openhft.chronicle.map.replication;
    exports net.openhft.chronicle.set;
    exports net.openhft.chronicle.set.internal;
    exports net.openhft.chronicle.set.replication;
    exports net.openhft.sg;
    exports net.openhft.xstream.converters;
    exports net.openhft.xstream.converters.internal;
}
