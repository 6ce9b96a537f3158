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
