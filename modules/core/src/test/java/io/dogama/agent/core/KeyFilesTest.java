package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's key files: read strictly, and made so that a crash leaves no key file or a complete one. */
class KeyFilesTest {
    @TempDir
    Path dir;

    @AfterEach
    void noSeam() {
        KeyFiles.beforePublish = () -> {
        };
    }

    @Test
    void aNewKeyIsAFileOfMode0600ThatLoadsBack() throws Exception {
        Path file = dir.resolve("audit.key");
        byte[] key = KeyFiles.create(file, 32);
        assertEquals(32, key.length);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertArrayEquals(key, KeyFiles.load(file, 32));
        assertFalse(Files.exists(dir.resolve("audit.key.tmp")));
    }

    /**
     * Until the key is complete and on disk, nothing has its name: a crash or a full disk while it is written
     * leaves no key file (before, the bytes went into the final name, and a key file cut short refused every
     * later start).
     */
    @Test
    void theKeyHasItsNameOnlyOnceItIsCompleteAndForced() throws Exception {
        Path file = dir.resolve("audit.key");
        AtomicBoolean ran = new AtomicBoolean();
        KeyFiles.beforePublish = () -> {
            ran.set(true);
            assertFalse(Files.exists(file), "the key file exists before it is complete");
        };
        KeyFiles.create(file, 32);
        assertTrue(ran.get());

        // A crash at that point: the next creation replaces the unpublished temporary file.
        Path other = dir.resolve("registry.key");
        KeyFiles.beforePublish = () -> {
            throw new IllegalStateException("crash");
        };
        assertThrows(IllegalStateException.class, () -> KeyFiles.create(other, 32));
        assertFalse(Files.exists(other));
        assertTrue(Files.exists(dir.resolve("registry.key.tmp")));
        noSeam();
        assertThrows(KeyFiles.KeyFileException.class, () -> KeyFiles.load(other, 32));
        byte[] key = KeyFiles.create(other, 32);
        assertArrayEquals(key, KeyFiles.load(other, 32));
        assertFalse(Files.exists(dir.resolve("registry.key.tmp")));
    }

    /** A key is drawn from the system's random source: no two are alike, and none is the zero key (PIT). */
    @Test
    void aNewKeyIsRandom() throws Exception {
        byte[] first = KeyFiles.create(dir.resolve("audit.key"), 32);
        byte[] second = KeyFiles.generate(32);
        assertFalse(Arrays.equals(first, second), "two keys are alike");
        assertFalse(Arrays.equals(new byte[32], first), "a key of zeros");
        assertFalse(Arrays.equals(new byte[32], second), "a key of zeros");
    }

    @Test
    void anExistingKeyIsNeverReplaced() throws Exception {
        Path file = dir.resolve("audit.key");
        byte[] key = KeyFiles.create(file, 32);
        assertThrows(KeyFiles.KeyFileException.class, () -> KeyFiles.create(file, 32));
        assertArrayEquals(key, KeyFiles.load(file, 32));
    }

    @Test
    void anythingButAPrivateRegularFileOfTheLengthIsRefused() throws Exception {
        Path file = dir.resolve("audit.key");
        KeyFiles.KeyFileException missing = assertThrows(KeyFiles.KeyFileException.class,
                () -> KeyFiles.load(file, 32));
        assertTrue(missing.missing());
        KeyFiles.create(file, 32);
        Path link = Files.createSymbolicLink(dir.resolve("link.key"), file);
        assertTrue(assertThrows(KeyFiles.KeyFileException.class, () -> KeyFiles.load(link, 32)).getMessage()
                .contains("not a regular file"));
        assertTrue(assertThrows(KeyFiles.KeyFileException.class, () -> KeyFiles.load(file, 16)).getMessage()
                .contains("exactly 16 bytes"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        KeyFiles.KeyFileException open = assertThrows(KeyFiles.KeyFileException.class, () -> KeyFiles.load(file, 32));
        assertTrue(open.getMessage().contains("mode 0600"));
        assertFalse(open.missing());
    }
}
