package io.dogama.agent.registry;

import java.io.Serial;

/**
 * The registry's file system has no room for a write: nothing was stored (what the write had
 * appended was cut off again, the current version is intact), and the same write may succeed once
 * space returns.
 */
public final class RegistryFullException extends RegistryException {
    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, never a secret
     * @param cause   the underlying failure
     */
    public RegistryFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
