package io.dogama.agent.docker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The choice of junixsocket's JNI library; the runtime image itself is tested by ProcessE2ETest. */
class JniLibraryTest {
    @TempDir
    Path home;

    @Test
    void aRuntimeWithItsOwnLibraryLoadsThatFileAndNothingElse() throws Exception {
        Path lib = Files.createDirectories(home.resolve("lib")).resolve(JniLibrary.FILE_NAME);
        Files.write(lib, new byte[] {0x7f, 'E', 'L', 'F'});
        Properties p = new Properties();
        // Whoever starts the JVM named another file: the runtime's own is set over it, and forced.
        p.setProperty(JniLibrary.OVERRIDE, "/tmp/elsewhere.so");
        p.setProperty(JniLibrary.FORCE, "false");
        assertEquals(lib, JniLibrary.prepare(home, p));
        assertEquals(lib.toString(), p.getProperty(JniLibrary.OVERRIDE));
        assertEquals("true", p.getProperty(JniLibrary.FORCE));
    }

    @Test
    void aJdkWithoutTheFileKeepsJunixsocketsOwnLookup() throws Exception {
        Files.createDirectories(home.resolve("lib").resolve(JniLibrary.FILE_NAME)); // a folder is not the library
        Properties p = new Properties();
        assertNull(JniLibrary.prepare(home, p));
        assertTrue(p.isEmpty(), p.toString());
    }
}
