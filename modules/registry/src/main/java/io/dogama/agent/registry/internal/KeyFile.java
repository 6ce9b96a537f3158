package io.dogama.agent.registry.internal;

import io.dogama.agent.core.KeyFiles;
import io.dogama.agent.registry.RegistryException;
import java.nio.file.Path;

/**
 * The agent-local registry key: {@value RecordMac#KEY_BYTES} random bytes in a regular file of mode 0600,
 * never a symlink ({@link KeyFiles}, the one definition of the agent's key files). The key bytes are never
 * logged nor put in a message.
 */
final class KeyFile {
    private KeyFile() {
    }

    /**
     * @throws RegistryException if the file is missing, not a regular file, accessible by group or
     *                           others, not exactly {@value RecordMac#KEY_BYTES} bytes, or unreadable
     */
    static byte[] load(Path file) throws RegistryException {
        try {
            return KeyFiles.load(file, RecordMac.KEY_BYTES);
        } catch (KeyFiles.KeyFileException e) {
            throw new RegistryException(e.getMessage(), e);
        }
    }

    /** @return {@value RecordMac#KEY_BYTES} new random bytes, for {@link #publish} once they have been used */
    static byte[] generate() {
        return KeyFiles.generate(RecordMac.KEY_BYTES);
    }

    /**
     * Publishes a key made by {@link #generate} so that a crash leaves either no key or a complete one.
     *
     * @throws RegistryException if the key cannot be written, or a key file appeared meanwhile
     */
    static byte[] publish(Path file, byte[] key) throws RegistryException {
        try {
            return KeyFiles.publish(file, key);
        } catch (KeyFiles.KeyFileException e) {
            throw new RegistryException(e.getMessage(), e);
        }
    }
}
