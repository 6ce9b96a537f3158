package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.Registry;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import net.openhft.posix.PosixAPI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChronicleStartupTest {
    @TempDir
    Path dir;

    @Test
    void chroniclesPosixBindingIsItsNoOpOneOnceTheRegistryOpened() throws Exception {
        try (Registry r = Registry.open(dir, 4)) {
            // Under JUnit chronicle-core skips its own warm-up of the binding, so without ChronicleStartup
            // this first call would load JNR-FFI's (JNRPosixAPI), which works on this platform.
            assertEquals("NoOpPosixAPI", PosixAPI.posix().getClass().getSimpleName());
            assertEquals(4, r.maxInstances());
        }
    }

    /**
     * From a working directory with no build folder above it ({@code /}), chronicle-core would make
     * {@code java.io.tmpdir/target}; the registry's JVM writes nothing there.
     */
    @Test
    void nothingIsWrittenToTheTemporaryFolder() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path data = Files.createDirectory(dir.resolve("data"));
        ProcessBuilder java = ForkedJvm.command(List.of("-Djava.io.tmpdir=" + tmp, "-Duser.dir=/"), true, "probe",
                data.toString()).directory(new File("/"));
        String out = ForkedJvm.run(java, dir.resolve("forked.log")).output();
        assertTrue(out.contains("probe ok"), out);
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of(), files.toList(), "written to java.io.tmpdir");
        }
    }
}
