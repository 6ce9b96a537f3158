package io.dogama.agent.policy.internal;

import io.dogama.agent.core.Labels;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Custom label key namespaces (SPEC section 5, 1.1): the namespaces of other host tools that act on
 * container labels, refused by default, and the administrator's optional narrowing list
 * ({@code customLabelPrefixes}, SPEC section 11).
 */
public final class LabelKeys {
    /**
     * Key prefixes other tools on a Docker host trust: a container carrying them could steer a
     * reverse proxy's routes (Traefik, caddy-docker-proxy), join someone else's compose project
     * (Docker), be updated or restarted by another tool (Watchtower, autoheal, Diun, Portainer),
     * have commands run in it as any user (Ofelia's and Chadburn's {@code job-exec}, deck-chores' jobs, which would
     * bypass {@code allowRootUser}; so do the backup tools' hooks: docker-volume-backup's
     * {@code archive-pre} with its {@code .user}, backupbot's and nautical-backup's) or pose as another
     * image (OCI / label-schema metadata). SPEC section 5's list, and the namespaces of the same kind it
     * does not name yet ({@code caddy}, {@code ofelia.}, {@code chadburn.}, {@code deck-chores.}, the backup tools, Ouroboros,
     * deunhealth, WUD, Sablier and the nginx-proxy companion's). A list cannot be complete: on a host
     * with another such tool the administrator narrows custom keys with {@code customLabelPrefixes}, and
     * the start warns while it is not set. Compared in lower case; {@code autoheal} and {@code caddy}
     * have no dot because those tools read the bare key (and {@code caddy_0}) as well.
     */
    public static final List<String> FOREIGN_PREFIXES = List.of("com.docker.", "org.opencontainers.",
            "org.label-schema.", "traefik.", "com.centurylinklabs.watchtower.", "io.portainer.", "autoheal",
            "diun.", "com.github.containrrr.", "caddy", "ofelia.", "chadburn.", "deck-chores.", "docker-volume-backup.",
            "backupbot.", "nautical-backup.", "com.ouroboros.", "deunhealth.", "wud.", "sablier.",
            "com.github.jrcs.letsencrypt_nginx_proxy_companion.");
    /** Most entries of {@code customLabelPrefixes}. */
    public static final int MAX_PREFIXES = 32;
    /** Longest prefix: the longest custom key. */
    public static final int MAX_PREFIX_LENGTH = 63;
    /** A prefix must be able to start a valid custom key: first character alphanumeric, then key characters. */
    private static final Pattern PREFIX = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    private LabelKeys() {
    }

    /**
     * @param key a custom label key
     * @return true if it lies in a namespace of another host tool, in any letter case
     */
    public static boolean isForeign(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return FOREIGN_PREFIXES.stream().anyMatch(k::startsWith);
    }

    /**
     * @param key      a custom label key
     * @param prefixes the administrator's list; empty means no narrowing
     * @return true if the list is empty or the key starts with one of its prefixes
     */
    public static boolean permitted(String key, List<String> prefixes) {
        return prefixes.isEmpty() || prefixes.stream().anyMatch(key::startsWith);
    }

    /**
     * The start-up rules of {@code customLabelPrefixes}: 1 to {@link #MAX_PREFIXES} distinct entries,
     * each lower-case key syntax, none in the reserved {@code dogama.}/{@code io.dogama.} namespace or
     * in a foreign one (every key it admits would be refused anyway: a sign of a mistaken config).
     *
     * @param prefixes the list as configured
     * @return every problem as {@code field: rule}
     */
    public static List<String> prefixProblems(List<String> prefixes) {
        List<String> p = new ArrayList<>();
        if (prefixes.isEmpty() || prefixes.size() > MAX_PREFIXES) {
            p.add("customLabelPrefixes: count");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < prefixes.size(); i++) {
            String s = prefixes.get(i);
            String field = "customLabelPrefixes[" + i + "]: ";
            if (!PREFIX.matcher(s).matches()) {
                p.add(field + "invalid_prefix");
            } else if (Labels.isReserved(s)) {
                p.add(field + "reserved_label");
            } else if (isForeign(s)) {
                p.add(field + "foreign_label_namespace");
            } else if (!seen.add(s)) {
                p.add(field + "duplicate");
            }
        }
        return p;
    }
}
