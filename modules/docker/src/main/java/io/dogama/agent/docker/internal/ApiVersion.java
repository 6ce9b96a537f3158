package io.dogama.agent.docker.internal;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An engine API version {@code MAJOR.MINOR}.
 *
 * @param major major part
 * @param minor minor part
 */
record ApiVersion(int major, int minor) implements Comparable<ApiVersion> {
    private static final Pattern SYNTAX = Pattern.compile("^([0-9]{1,3})\\.([0-9]{1,3})$");

    static Optional<ApiVersion> parse(String s) {
        if (s == null) {
            return Optional.empty();
        }
        Matcher m = SYNTAX.matcher(s);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new ApiVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
    }

    static ApiVersion of(String s) {
        return parse(s).orElseThrow(() -> new IllegalArgumentException("docker: bad API version constant"));
    }

    @Override
    public int compareTo(ApiVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    /** @return the path prefix, e.g. {@code /v1.41} */
    String pathPrefix() {
        return "/v" + this;
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
