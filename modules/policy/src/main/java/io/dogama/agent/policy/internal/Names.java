package io.dogama.agent.policy.internal;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** Syntax of the names the policy compares: networks, image references, roots (IP literals: {@code IpLiteral}). */
public final class Names {
    /** Docker network names the administrator may approve (no colon, so never {@code container:*}). */
    public static final Pattern NETWORK = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    /** Allowed-root names. */
    public static final Pattern ROOT_NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    /** {@code sha256:<hex>} as used for image IDs and manifest digests. */
    public static final Pattern SHA256 = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final String LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?";
    private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    /** A Docker image reference: optional registry host[:port], path, optional tag, optional digest. */
    public static final Pattern IMAGE_REFERENCE = Pattern.compile(
            // As Docker reads it: the first part is a registry only with a dot, a port, or "localhost".
            "(?:(?:localhost|" + LABEL + "(?:\\." + LABEL + ")+|" + LABEL + "(?:\\." + LABEL + ")*:[0-9]{1,5})/)?"
                    + COMPONENT + "(?:/" + COMPONENT + ")*"
                    + "(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?");
    private static final Set<String> FORBIDDEN_NETWORKS = Set.of("host", "none", "bridge", "default");
    /**
     * What the engine may take for the start of a network ID (lower-case hex, as its IDs are): it answers
     * a name it does not know with the network whose ID begins with it, at a create and at every start.
     */
    private static final Pattern ID_PREFIX = Pattern.compile("[0-9a-f]+");

    private Names() {
    }

    /**
     * @param name a network name
     * @return true for {@code host}, {@code none}, {@code bridge}, {@code default} (any case),
     *         {@code container:*}, and a name of lower-case hex digits alone (such as {@code db} or
     *         {@code cafe}): never approvable. Whenever no network has that name (not yet created, or
     *         removed while a container still names it), the engine resolves it to the network whose ID
     *         begins with it (when only one does), at the create and at each later start.
     */
    public static boolean isForbiddenNetwork(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return FORBIDDEN_NETWORKS.contains(n) || n.startsWith("container:") || n.contains(":")
                || ID_PREFIX.matcher(name).matches();
    }

    /**
     * The repository part of a reference in Docker's familiar form, so that {@code dogama/x:1},
     * {@code docker.io/dogama/x} and {@code docker.io/dogama/x@sha256:...} compare equal.
     *
     * @param reference an image reference or a repo-digest's name part
     * @return the repository without tag, digest, {@code docker.io/} and {@code library/}
     */
    public static String familiarRepository(String reference) {
        String r = reference;
        int at = r.indexOf('@');
        if (at >= 0) {
            r = r.substring(0, at);
        }
        int colon = r.lastIndexOf(':');
        if (colon > r.lastIndexOf('/')) {
            r = r.substring(0, colon);
        }
        for (String prefix : new String[] {"docker.io/", "index.docker.io/", "registry-1.docker.io/"}) {
            if (r.startsWith(prefix)) {
                r = r.substring(prefix.length());
                break;
            }
        }
        if (r.startsWith("library/")) {
            r = r.substring("library/".length());
        }
        return r;
    }
}
