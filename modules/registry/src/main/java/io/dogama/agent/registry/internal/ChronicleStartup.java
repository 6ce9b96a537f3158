package io.dogama.agent.registry.internal;

import net.openhft.posix.PosixAPI;

/**
 * What must happen before the first Chronicle class initializes.
 *
 * <p>chronicle-core's {@code Jvm} warms up a native POSIX binding when it initializes (outside JUnit):
 * JNR-FFI assembles call stubs at run time and generates classes with ASM, about 120 ms of CPU and
 * several hundred classes, on the agent's start path. Chronicle Map never calls that binding: only
 * chronicle-bytes' {@code MappedBytesStore}/{@code MappedFile} (msync, fallocate, madvise) do, and the map
 * maps its file through chronicle-core's {@code OS.map}, not through them. The registry's durability
 * does not rest on it either: renames and markers are fsynced through {@link Fsync}. So the binding
 * is set to Chronicle's own no-op implementation, explicitly, before any Chronicle class loads;
 * {@code PosixAPI.posix()} then never loads JNR.
 */
final class ChronicleStartup {
    private static boolean done;

    private ChronicleStartup() {
    }

    /** Idempotent; call before naming any Chronicle type. */
    static synchronized void prepare() {
        if (done) {
            return;
        }
        // Belt and braces beside the JVM option: Chronicle must never call its analytics service.
        System.setProperty("chronicle.analytics.disable", "true");
        PosixAPI.useNoOpPosixApi();
        done = true;
    }
}
