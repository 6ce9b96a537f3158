// net.openhft:chronicle-values: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.values {
    requires chronicle.core;
    requires com.squareup.javapoet;

    requires transitive chronicle.bytes;
    requires transitive java.compiler;
    requires transitive net.openhft.compiler;

    exports net.openhft.chronicle.values;
    exports net.openhft.chronicle.values.internal;
}
