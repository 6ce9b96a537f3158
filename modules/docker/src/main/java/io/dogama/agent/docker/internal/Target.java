package io.dogama.agent.docker.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Builds a request target: the versioned prefix, fixed path words, validated references and a
 * query of typed values. The result is pure ASCII without space, CR or LF by construction.
 */
final class Target {
    private static final Pattern WORD = Pattern.compile("^[a-z_]{1,32}$");
    private static final Pattern QUERY_NAME = Pattern.compile("^[a-zA-Z-]{1,32}$");
    private final StringBuilder sb;
    /** The same path with every reference replaced by its kind: the operation's name in the metrics. */
    private final StringBuilder shape = new StringBuilder(48);
    private boolean query;

    private Target(String prefix) {
        sb = new StringBuilder(96).append(prefix);
    }

    static Target versioned(ApiVersion v) {
        return new Target(v.pathPrefix());
    }

    static Target unversioned() {
        return new Target("");
    }

    /** Appends fixed path words of this module, e.g. {@code "containers"}. */
    Target path(String... words) {
        for (String w : words) {
            if (!WORD.matcher(w).matches()) {
                throw new IllegalArgumentException("docker: bad path word constant");
            }
            sb.append('/').append(w);
            shape.append('/').append(w);
        }
        return this;
    }

    Target container(String idOrName) {
        sb.append('/').append(Refs.container(idOrName));
        shape.append("/{container}");
        return this;
    }

    Target network(String name) {
        sb.append('/').append(Refs.network(name));
        shape.append("/{network}");
        return this;
    }

    /** Image references keep their slashes: the engine routes {@code /images/{name:.*}/json}. */
    Target image(String ref) {
        sb.append('/').append(Refs.image(ref));
        shape.append("/{image}");
        return this;
    }

    Target query(String name, String value) {
        if (!QUERY_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("docker: bad query name constant");
        }
        sb.append(query ? '&' : '?').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        query = true;
        return this;
    }

    Target query(String name, long value) {
        return query(name, Long.toString(value));
    }

    Target query(String name, boolean value) {
        return query(name, Boolean.toString(value));
    }

    /** @return the path without version, references or query, e.g. {@code /containers/{container}/start} */
    String shape() {
        return shape.toString();
    }

    String build() {
        return sb.toString();
    }
}
