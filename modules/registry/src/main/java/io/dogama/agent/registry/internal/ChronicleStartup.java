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
 *
 * <p>chronicle-core's {@code Jvm} also reads a properties file when it initializes: the one the system
 * property {@value #PROPERTIES_FILE_PROPERTY} names, else {@code system.properties} from the class path, the
 * working directory or its parent, and adds every property in it the JVM does not have yet. So whoever can
 * put a file there could set any unset system property of the agent: a library's native-library
 * override, Chronicle's own switches. The agent takes no configuration from its working directory, so
 * the property is set to an empty file, always.
 */
final class ChronicleStartup {
    private static boolean done;
    /** The system property chronicle-core's {@code Jvm} reads its properties file's name from. */
    static final String PROPERTIES_FILE_PROPERTY = "system.properties";
    /** An empty file on every Linux, container or not: nothing to read, and nothing to warn about. */
    static final String NO_PROPERTIES = "/dev/null";

    private ChronicleStartup() {
    }

    /** Idempotent; call before naming any Chronicle type. */
    static synchronized void prepare() {
        if (done) {
            return;
        }
        // Belt and braces beside the JVM option: Chronicle must never call its analytics service.
        System.setProperty("chronicle.analytics.disable", "true");
        // Set, not defaulted: a -Dsystem.properties=... from whoever starts the agent is overridden too.
        System.setProperty(PROPERTIES_FILE_PROPERTY, NO_PROPERTIES);
        PosixAPI.useNoOpPosixApi();
        done = true;
    }
}
