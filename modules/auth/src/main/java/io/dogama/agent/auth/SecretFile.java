package io.dogama.agent.auth;

import io.dogama.agent.auth.internal.SecretFileParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Loads the shared request secret file of SPEC section 3.
 *
 * <p>The file holds one or two lines, each the base64url encoding (padding optional) of at least
 * {@value #MIN_SECRET_BYTES} bytes: line 1 is the current secret, line 2, if present, the previous
 * one, still accepted during a rotation. A final newline is allowed; anything else is refused: an
 * empty or blank line, a carriage return (a file saved with CRLF line ends is refused rather than
 * silently repaired, so that what the agent uses is exactly what the control plane uses), spaces, a
 * third line. The file must be a regular file (symbolic links are followed) on a POSIX file system,
 * readable by neither "others" nor writable by group or others.
 */
public final class SecretFile {
    /** Minimum decoded length of each secret: 32 bytes (256 bits), as SPEC section 3 asks. */
    public static final int MIN_SECRET_BYTES = 32;
    /** At most two secrets: the current and the previous one. */
    public static final int MAX_SECRETS = 2;
    /** Upper bound on the file size, 4096 bytes; a larger file is refused unread. */
    public static final int MAX_FILE_BYTES = 4096;

    private SecretFile() {
    }

    /**
     * Reads and validates the secret file.
     *
     * @param file the secret file, e.g. {@code /run/secrets/dogama-agent-hmac}
     * @return the secrets, current first
     * @throws AuthException if the file is missing, not a regular file, larger than {@value #MAX_FILE_BYTES}
     *                       bytes, world-readable or group/world-writable, on a file system without POSIX
     *                       permissions, empty, or malformed; the message names the file and the rule, never
     *                       any of its content
     */
    public static Secrets load(Path file) throws AuthException {
        String name = file.toString();
        if (!Files.exists(file)) {
            throw new AuthException("secret file " + name + " is missing");
        }
        if (!Files.isRegularFile(file)) {
            throw new AuthException("secret file " + name + " is not a regular file");
        }
        checkPermissions(file, name);
        byte[] content;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new AuthException("secret file " + name + " is larger than " + MAX_FILE_BYTES + " bytes");
            }
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new AuthException("secret file " + name + " is missing", e);
        } catch (IOException e) {
            throw new AuthException("secret file " + name + " cannot be read", e);
        }
        try {
            SecretFileParser.Result result = SecretFileParser.parse(content, MIN_SECRET_BYTES, MAX_SECRETS);
            return switch (result) {
                case SecretFileParser.Result.Parsed parsed -> {
                    Secrets secrets = Secrets.of(parsed.keys());
                    parsed.keys().forEach(k -> Arrays.fill(k, (byte) 0));
                    yield secrets;
                }
                case SecretFileParser.Result.Invalid invalid ->
                        throw new AuthException("secret file " + name + ": " + invalid.reason());
            };
        } finally {
            Arrays.fill(content, (byte) 0);
        }
    }

    private static void checkPermissions(Path file, String name) throws AuthException {
        Set<PosixFilePermission> permissions;
        try {
            permissions = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException e) {
            throw new AuthException("secret file " + name + " is on a file system without POSIX permissions");
        } catch (IOException e) {
            throw new AuthException("secret file " + name + " permissions cannot be read", e);
        }
        List<PosixFilePermission> forbidden = List.of(PosixFilePermission.OTHERS_READ,
                PosixFilePermission.OTHERS_WRITE, PosixFilePermission.GROUP_WRITE);
        for (PosixFilePermission p : forbidden) {
            if (permissions.contains(p)) {
                throw new AuthException("secret file " + name + " must not be " + describe(p)
                        + " (use mode 0400 or 0600)");
            }
        }
        if (permissions.contains(PosixFilePermission.GROUP_READ)) {
            // Group read is for the agent's own group (compose: the socket's group, 0440); any other group's members
            // would hold the key to the Docker socket.
            int gid;
            try {
                gid = (Integer) Files.getAttribute(file, "unix:gid");
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                throw new AuthException("secret file " + name + " group cannot be read", e);
            }
            if (!processGroups().contains(gid)) {
                throw new AuthException("secret file " + name + " is readable by its group " + gid
                        + ", which the agent's process is not in (use mode 0400 or 0600, or the agent's group)");
            }
        }
    }

    /** @return the process's effective group and its supplementary groups, from {@code /proc/self/status} */
    private static Set<Integer> processGroups() throws AuthException {
        Set<Integer> groups = new java.util.HashSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Gid:")) {
                    groups.add(Integer.parseInt(line.substring(4).trim().split("\\s+")[1]));
                } else if (line.startsWith("Groups:")) {
                    for (String g : line.substring(7).trim().split("\\s+")) {
                        if (!g.isEmpty()) {
                            groups.add(Integer.parseInt(g));
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new AuthException("the agent's groups cannot be read from /proc/self/status", e);
        }
        if (groups.isEmpty()) {
            throw new AuthException("the agent's groups cannot be read from /proc/self/status");
        }
        return groups;
    }

    private static String describe(PosixFilePermission p) {
        return switch (p) {
            case OTHERS_READ -> "world-readable";
            case OTHERS_WRITE -> "world-writable";
            case GROUP_WRITE -> "group-writable";
            default -> p.name();
        };
    }
}
