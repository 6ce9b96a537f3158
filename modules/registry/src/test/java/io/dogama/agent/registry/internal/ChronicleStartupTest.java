package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dogama.agent.registry.Registry;
import java.nio.file.Path;
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
}
