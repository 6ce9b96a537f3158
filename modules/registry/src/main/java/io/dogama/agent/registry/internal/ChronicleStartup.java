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
 *
 * <p>Once a map is open, Chronicle's JVM shutdown hook goes ({@link #dropShutdownHooks}): on a stop signal the
 * JVM runs every hook at once, and Chronicle's closes (and unmaps) every map it opened, beside the agent's
 * own hook, under registry operations still in flight and before the registry's close, which alone knows
 * when the file is left clean. The map's own switch for that ({@code skipCloseOnExitHook}) is stored in the
 * file's header when the file is made, so a registry made by an earlier build would keep the hook.
 */
final class ChronicleStartup {
    private static boolean done;
    /** The system property chronicle-core's {@code Jvm} reads its properties file's name from. */
    static final String PROPERTIES_FILE_PROPERTY = "system.properties";
    /** An empty file on every Linux, container or not: nothing to read, and nothing to warn about. */
    static final String NO_PROPERTIES = "/dev/null";
    /** The system property chronicle-core's {@code OS} takes its build folder from. */
    static final String BUILD_DIRECTORY_PROPERTY = "project.build.directory";
    /** chronicle-core's holder of its JVM shutdown hook; {@code clear()} is public API. */
    private static final String PRIORITY_HOOK = "net.openhft.chronicle.core.shutdown.PriorityHook";

    private ChronicleStartup() {
    }

    /** Idempotent; call before naming any Chronicle type. */
    static synchronized void prepare() {
        if (done) {
            return;
        }
        // Belt and braces beside the JVM option: Chronicle must never call its analytics service.
        System.setProperty("chronicle.analytics.disable", "true");
        // chronicle-core's announcer otherwise logs a banner when a map first opens: the JVM, the process ID and an
        // invitation to leave an e-mail address with the vendor. None of it is the agent's to say in its log.
        System.setProperty("chronicle.announcer.disable", "true");
        // Set, not defaulted: a -Dsystem.properties=... from whoever starts the agent is overridden too.
        System.setProperty(PROPERTIES_FILE_PROPERTY, NO_PROPERTIES);
        // chronicle-core's OS otherwise looks for a build folder ("target", "build") in the working directory
        // and each parent, and makes java.io.tmpdir/target when none is found: a folder outside the data
        // directory at every start, for code generation the map never does. A path nothing can be written below.
        System.setProperty(BUILD_DIRECTORY_PROPERTY, NO_PROPERTIES);
        PosixAPI.useNoOpPosixApi();
        done = true;
    }

    /**
     * Removes the JVM shutdown hook through which chronicle-core runs its classes' shutdown work. The one
     * that closes every open map is added once, when the first map opens, so after that it is gone for
     * good; a class initialized later may register a hook again, for its own work only. The agent's own
     * shutdown closes the registry.
     */
    static void dropShutdownHooks() {
        // Through reflection: naming chronicle-core's type would mean requiring its module, and that moves it
        // onto the module path of every build and test JVM below this module, where Chronicle's compilation
        // of its generated classes at run time (tests without the pre-generated ones) no longer finds it.
        try {
            Class.forName(PRIORITY_HOOK).getMethod("clear").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("registry: cannot remove Chronicle's shutdown hook", e);
        }
    }
}
