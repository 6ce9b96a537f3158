package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.AuditException;
import io.dogama.agent.core.KeyFiles;
import java.nio.file.Path;

/**
 * The audit key: {@value Chain#MAC_BYTES} random bytes in a regular file of mode 0600, separate from
 * the request secret and the registry key, made on first start ({@link KeyFiles}, the one definition
 * of the agent's key files). The bytes never appear in a message.
 */
public final class KeyFile {
    private KeyFile() {
    }

    /**
     * @param file      the key file
     * @param mayCreate true to create it when missing (the agent's first start)
     * @return the key bytes
     * @throws AuditException if it is missing (and may not be made), not a regular file, open to group
     *                        or others, not exactly {@value Chain#MAC_BYTES} bytes, or unreadable
     */
    public static byte[] load(Path file, boolean mayCreate) throws AuditException {
        try {
            return KeyFiles.load(file, Chain.MAC_BYTES);
        } catch (KeyFiles.KeyFileException e) {
            if (!e.missing() || !mayCreate) {
                throw new AuditException(e.getMessage(), e);
            }
        }
        try {
            return KeyFiles.create(file, Chain.MAC_BYTES);
        } catch (KeyFiles.KeyFileException e) {
            throw new AuditException(e.getMessage(), e);
        }
    }
}
