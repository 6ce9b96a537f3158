package io.dogama.agent.docker.internal;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The syntax of every caller value that ends up in a request path or query. Each check throws
 * {@link IllegalArgumentException} without echoing the value: a value that fails could carry a
 * path, a query or a header, and it is never sent.
 */
final class Refs {
    /** Container IDs and names, and network names: no slash, no dot segment, no escape. */
    static final Pattern OBJECT = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$");
    /**
     * A container or network ID as the engine gives it: full length, so that an answer naming another
     * object by name or short prefix ({@code dogama-Y}, {@code host}) is never acted on.
     */
    static final Pattern ENGINE_ID = Pattern.compile("^[a-f0-9]{64}$");
    /** An image ID. */
    static final Pattern IMAGE_ID = Pattern.compile("^sha256:[a-f0-9]{64}$");
    /** A registry manifest digest. */
    static final String DIGEST = "sha256:[a-f0-9]{64}";
    private static final String DOMAIN_PART = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    private static final String DOMAIN = DOMAIN_PART + "(?:\\." + DOMAIN_PART + ")*(?::[0-9]{1,5})?";
    private static final String PATH_PART = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    private static final String NAME = "(?:" + DOMAIN + "/)?" + PATH_PART + "(?:/" + PATH_PART + ")*";
    private static final String TAG = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";
    /**
     * An image reference as the distribution grammar defines it (IPv6 registry hosts are not
     * accepted): {@code [host[:port]/]path[:tag][@sha256:<hex>]}.
     */
    static final Pattern IMAGE_REF =
            Pattern.compile("^(" + NAME + ")(?::(" + TAG + "))?(?:@(" + DIGEST + "))?$");
    /** Longest image name, as the distribution grammar allows. */
    static final int MAX_IMAGE_NAME = 255;
    /** Label keys accepted in a list filter. */
    static final Pattern LABEL_KEY = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$");
    /** Longest label value accepted in a list filter (SPEC section 5 allows 256). */
    static final int MAX_LABEL_VALUE = 256;
    /** Network modes that are never a DoGaMa network (SPEC section 8). */
    static final Set<String> FORBIDDEN_NETWORKS = Set.of("host", "none", "bridge", "default");

    private Refs() {
    }

    static String object(String s, String what) {
        if (s == null || !OBJECT.matcher(s).matches()) {
            throw new IllegalArgumentException("docker: invalid " + what);
        }
        return s;
    }

    static String container(String s) {
        return object(s, "container ID or name");
    }

    static String network(String s) {
        return object(s, "network name");
    }

    /** A network that may become a container's network mode. */
    static String approvedNetwork(String s) {
        network(s);
        if (FORBIDDEN_NETWORKS.contains(s.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("docker: a host, none, bridge or default network is never used");
        }
        return s;
    }

    /** An image ID or reference, for inspect and create. */
    static String image(String s) {
        if (s != null && IMAGE_ID.matcher(s).matches()) {
            return s;
        }
        parse(s);
        return s;
    }

    /**
     * An image that cannot change under the agent: an image ID, or a reference pinned by digest.
     * A tag alone is refused because it may be moved between the digest check and the create.
     */
    static String pinnedImage(String s) {
        if (s != null && IMAGE_ID.matcher(s).matches()) {
            return s;
        }
        if (parse(s).digest() == null) {
            throw new IllegalArgumentException("docker: a container image must be an image ID or pinned by digest");
        }
        return s;
    }

    /**
     * A parsed reference.
     *
     * @param name   repository name
     * @param tag    tag, or null
     * @param digest digest, or null
     */
    record ImageRef(String name, String tag, String digest) {
    }

    static ImageRef parse(String s) {
        Matcher m = s == null ? null : IMAGE_REF.matcher(s);
        if (m == null || !m.matches() || m.group(1).length() > MAX_IMAGE_NAME) {
            throw new IllegalArgumentException("docker: invalid image reference");
        }
        return new ImageRef(m.group(1), m.group(2), m.group(3));
    }

    static String labelKey(String s) {
        if (s == null || !LABEL_KEY.matcher(s).matches()) {
            throw new IllegalArgumentException("docker: invalid label key");
        }
        return s;
    }

    static String labelValue(String s) {
        if (s == null || s.length() > MAX_LABEL_VALUE || !printable(s)) {
            throw new IllegalArgumentException("docker: invalid label value");
        }
        return s;
    }

    static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x20 || ch == 0x7f) {
                return false;
            }
        }
        return true;
    }
}
