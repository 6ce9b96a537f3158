package io.dogama.agent.client;

import java.util.Objects;
import java.util.regex.Pattern;

/** The identifier syntax of SPEC section 5, checked before an ID becomes part of a request path. */
final class Ids {
    private static final Pattern ID = Pattern.compile("^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$");

    private Ids() {
    }

    /**
     * @param what  the parameter's name, for the message
     * @param value the ID
     * @return the ID
     * @throws IllegalArgumentException if it is not an instance or template ID of SPEC section 5; the
     *                                  check keeps a path segment from ever holding {@code /}, {@code ..},
     *                                  {@code ?} or {@code %}
     */
    static String require(String what, String value) {
        Objects.requireNonNull(value, what);
        if (!ID.matcher(value).matches()) {
            throw new IllegalArgumentException("client: " + what + " is not an ID of SPEC section 5");
        }
        return value;
    }
}
