package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's files are regular files of bounded size: anything else in their place is refused, never read. */
class RegularFilesTest {
    @TempDir
    Path dir;

    @Test
    void aFileIsReadUpToItsBoundAndRefusedBeyondIt() throws Exception {
        Path file = Files.write(dir.resolve("config.json"), new byte[] {1, 2, 3, 4});
        assertArrayEquals(new byte[] {1, 2, 3, 4}, RegularFiles.readAtMost(file, 4));
        assertThrows(RegularFiles.TooLarge.class, () -> RegularFiles.readAtMost(file, 3));
        assertThrows(RegularFiles.NotRegular.class, () -> RegularFiles.readAtMost(dir, 4096), "a folder");
    }

    @Test
    void onlyARegularFileOrNothingMayHaveAnAgentFilesName() throws Exception {
        assertFalse(RegularFiles.requireIfPresent(dir.resolve("absent")));
        Path file = Files.writeString(dir.resolve("audit.log"), "x");
        assertTrue(RegularFiles.requireIfPresent(file));
        Path link = Files.createSymbolicLink(dir.resolve("link.log"), file);
        assertTrue(assertThrows(RegularFiles.NotRegular.class, () -> RegularFiles.requireIfPresent(link))
                .getMessage().contains("symbolic link"));
        assertTrue(assertThrows(RegularFiles.NotRegular.class, () -> RegularFiles.requireIfPresent(dir))
                .getMessage().contains("folder"));
        Path socket = dir.resolve("socket.log");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(socket));
            assertTrue(assertThrows(RegularFiles.NotRegular.class, () -> RegularFiles.requireIfPresent(socket))
                    .getMessage().contains("socket"));
        }
    }
}
