// net.openhft:chronicle-algorithms: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.algorithms {
    requires chronicle.core;

    requires transitive chronicle.bytes;

    exports net.openhft.chronicle.algo;
    exports net.openhft.chronicle.algo.bitset;
    exports net.openhft.chronicle.algo.bytes;
    exports net.openhft.chronicle.algo.hashing;
    exports net.openhft.chronicle.algo.internal;
    exports net.openhft.chronicle.algo.locks;
}
