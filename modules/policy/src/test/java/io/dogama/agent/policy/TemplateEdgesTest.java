package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Template rules that {@link CatalogTest} tries on another field only: a tmpfs target is held to the same path rules
 * as a mount target, and an argument of the command or entrypoint may not hold a NUL (the engine passes arguments to
 * {@code execve} as C strings, where a NUL ends the argument: the container would run something other than what was
 * reviewed).
 */
class TemplateEdgesTest {
    @TempDir
    Path tmp;

    private void assertRefused(String expected, Consumer<Map<String, Object>> change) throws IOException {
        CatalogTest.assertRefused(tmp, expected, change);
    }

    /** Pins TemplateReader.tmpfs's {@code containerPath(target, ...)}: without it any target is admitted. */
    @Test
    void tmpfsTargetsAreCleanAndNeverKernelPaths() throws IOException {
        for (String target : List.of("/proc", "/sys/fs", "/dev/shm")) {
            assertRefused("tmpfs." + target + ": forbidden_target",
                    t -> t.put("tmpfs", map(target, map("sizeBytes", 1024))));
        }
        assertRefused("tmpfs.tmp: not_absolute", t -> t.put("tmpfs", map("tmp", map("sizeBytes", 1024))));
    }

    /** Pins TemplateReader.nullableArgs's NUL check ({@code invalid_string}), for both keys that read through it. */
    @Test
    void aNulInACommandOrEntrypointArgumentIsRefused() throws IOException {
        assertRefused("command: invalid_string",
                t -> t.put("command", list("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data\u0000/etc")));
        assertRefused("entrypoint: invalid_string", t -> t.put("entrypoint", list("/bin/sh\u0000", "-c")));
    }
}
