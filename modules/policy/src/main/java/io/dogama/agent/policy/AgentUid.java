package io.dogama.agent.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The UID the agent runs as: besides root, the one owner it trusts for the folders above a bind
 * source, for its config and secret files and the folders above them, and the one owner its data
 * directory may have.
 */
public final class AgentUid {
    /** UID of root. */
    public static final int ROOT = 0;
    /** Write bits for group and others in a file mode: either lets someone else change a file or swap a folder's entries. */
    public static final int GROUP_OR_OTHER_WRITE = 0022;
    /** Owned by the process's effective UID (procfs), the way to learn it without a platform-specific API. */
    private static final Path PROC_SELF = Path.of("/proc/self");

    private AgentUid() {
    }

    /**
     * The one rule for who may own what the agent trusts: a bind source's folders, its configuration, its
     * secret, the folders above its own.
     *
     * @param owner    a file's or folder's owner
     * @param agentUid the agent's UID
     * @return true for root and the agent only
     */
    public static boolean trustedOwner(int owner, int agentUid) {
        return owner == ROOT || owner == agentUid;
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
