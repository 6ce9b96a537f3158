package io.dogama.agent.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The UID the agent runs as: besides root, the one owner it trusts for the folders above a bind
 * source and the one owner its data directory may have.
 */
public final class AgentUid {
    /** UID of root. */
    public static final int ROOT = 0;
    /** Owned by the process's effective UID (procfs), the way to learn it without a platform-specific API. */
    private static final Path PROC_SELF = Path.of("/proc/self");

    private AgentUid() {
    }

    /**
     * @return the owner of {@code /proc/self}; root if that cannot be read. Either way it errs toward
     *         trusting fewer owners, never more: a non-dumpable process's {@code /proc/self} is root's too.
     */
    public static int current() {
        try {
            return (Integer) Files.getAttribute(PROC_SELF, "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return ROOT;
        }
    }
}
