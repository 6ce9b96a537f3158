// com.google.guava:failureaccess: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module com.google.common.util.concurrent.internal {
    exports com.google.common.util.concurrent.internal;
}
