package io.dogama.agent.docker.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where junixsocket's JNI library, the only native library the agent loads, comes from.
 *
 * <p>Left to itself, junixsocket copies the library out of its jar into {@code java.io.tmpdir} at every
 * start and loads the copy; where that directory refuses to run code ({@code noexec}) it writes and loads
 * another copy in the user's home, and then in the working directory. So a root daemon would load native
 * code from a file it wrote a moment before, in directories others may write to (a working directory
 * writable by someone else lets them swap the file between the write and the load).
 *
 * <p>The runtime image carries the library as a file of its own, {@value #FILE_NAME} in {@code lib/}
 * beside the JDK's libraries (jlink/pom.xml puts it there), and its modules hold no copy to extract. In
 * that runtime it is loaded from there, forced: if that load fails, junixsocket gives up instead of
 * looking elsewhere, and the agent refuses to start. A JVM without the file (a JDK running the tests)
 * keeps junixsocket's own lookup.
 */
final class JniLibrary {
    /** junixsocket's system property naming the library file to load instead of looking for one. */
    static final String OVERRIDE = "org.newsclub.net.unix.library.override";
    /** junixsocket's system property: when {@code true}, a failed override load is final. */
    static final String FORCE = "org.newsclub.net.unix.library.override.force";
    /** The file in the runtime's {@code lib/}. */
    static final String FILE_NAME = "libjunixsocket-native.so";

    private static boolean done;

    private JniLibrary() {
    }

    /** Idempotent; call before any junixsocket class initializes. */
    static synchronized void prepare() {
        if (!done) {
            prepare(Path.of(System.getProperty("java.home")), System.getProperties());
            done = true;
        }
    }

    /**
     * @param javaHome   the running JVM's home
     * @param properties where the choice is set (set, not defaulted: an override from the command line
     *                   never replaces the runtime's own file)
     * @return the file chosen, or null when junixsocket keeps its own lookup
     */
    static Path prepare(Path javaHome, Properties properties) {
        Path library = javaHome.resolve("lib").resolve(FILE_NAME);
        if (!Files.isRegularFile(library)) {
            return null;
        }
        properties.setProperty(OVERRIDE, library.toString());
        properties.setProperty(FORCE, "true");
        return library;
    }
}
