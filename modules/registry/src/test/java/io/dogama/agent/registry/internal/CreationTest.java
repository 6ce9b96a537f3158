package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A new registry file is made under a temporary name, forced, renamed into place and kept open. A JVM halted after
 * any step of that leaves either no registry file or a complete one, and the next open gives a working registry
 * either way.
 */
class CreationTest {
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(LogRegistry.CreationStep.class)
    @Tag("forked-jvm") // a JVM of its own on the module path, which mutation testing (a class path) leaves out
    void aCreationHaltedAfterAnyStepLeavesNoHalfMadeRegistry(LogRegistry.CreationStep step) throws Exception {
        Path data = Files.createDirectory(tmp.resolve("data"));
        Path stderr = tmp.resolve("child.err");
        Process p = ForkedJvm.command(List.of(), "create-crash", data.toString(), step.name())
                .redirectError(stderr.toFile()).start();
        assertTrue(p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the creating JVM did not end in time");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(ForkedRegistryMain.HALTED, p.exitValue(),
                "the child must halt after " + step + "; stdout: " + out + " stderr: " + Files.readString(stderr));

        Path map = data.resolve(LogRegistry.FILE);
        Path partial = data.resolve(LogRegistry.FILE + ".tmp");
        if (step == LogRegistry.CreationStep.RENAMED) {
            assertTrue(Files.exists(map), "renamed: the file is in place");
            assertFalse(Files.exists(partial), "renamed: no temporary file");
        } else {
            assertFalse(Files.exists(map), "before the rename there is no " + LogRegistry.FILE);
            assertTrue(Files.exists(partial), "the half-made file is only under its temporary name");
        }

        try (Registry r = Registry.open(data, 10)) {
            assertEquals(List.of(), r.all());
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("after-1", 1)));
        }
        assertFalse(Files.exists(partial), "the temporary file is gone after an open");
        try (Registry r = Registry.open(data, 10)) {
            assertInstanceOf(Lookup.Found.class, r.get("after-1"), "the record survives a close and reopen");
        }
    }

    @Test
    void aNewRegistryKeepsItsRecordsAcrossCloseAndReopen() throws Exception {
        try (Registry r = Registry.open(tmp, 10)) {
            assertInstanceOf(CasResult.Stored.class, r.insert(Samples.record("new-1", 1)));
        }
        assertFalse(Files.exists(tmp.resolve(LogRegistry.FILE + ".tmp")));
        try (Registry r = Registry.open(tmp, 10)) {
            Lookup.Found f = assertInstanceOf(Lookup.Found.class, r.get("new-1"));
            assertEquals(Samples.record("new-1", 1), f.record());
        }
    }
}
