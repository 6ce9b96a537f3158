// net.openhft:chronicle-threads: generated with `jdeps --generate-module-info` (JDK 25); every edit carries a comment.
module chronicle.threads {
    requires affinity;

    requires transitive chronicle.core;

    // jdeps does not see ServiceLoader look-ups (DiskSpaceMonitor, PauserMonitorFactory).
    uses net.openhft.chronicle.threads.NotifyDiskLow;
    uses net.openhft.chronicle.threads.PauserMonitorFactory;

    exports net.openhft.chronicle.threads;
    exports net.openhft.chronicle.threads.example;
    exports net.openhft.chronicle.threads.internal;
}
