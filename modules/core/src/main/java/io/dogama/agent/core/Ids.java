package io.dogama.agent.core;

import java.util.regex.Pattern;

/** Identifier syntax of SPEC section 5, in one place. */
public final class Ids {
    /** Instance and template IDs: 3 to 63 characters of lower-case letters, digits and inner dashes. */
    public static final Pattern ID = Pattern.compile("^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$");
    /** Template versions: MAJOR.MINOR.PATCH, no leading zeros, each part at most six digits. */
    public static final Pattern VERSION =
            Pattern.compile("^(0|[1-9][0-9]{0,5})\\.(0|[1-9][0-9]{0,5})\\.(0|[1-9][0-9]{0,5})$");

    private Ids() {
    }

    /**
     * Tells whether {@code s} is a valid instance or template ID.
     *
     * @param s candidate, may be null
     * @return true only for a syntactically valid ID
     */
    public static boolean isId(String s) {
        return s != null && isIdPrefix(s, s.length());
    }

    /**
     * Tells whether the first {@code length} characters of {@code s} are a valid instance or template ID,
     * without copying them out (a registry key is an ID and a suffix).
     *
     * @param s      candidate, not null
     * @param length how many of its first characters to check, at most its length
     * @return true only for a syntactically valid ID
     */
    public static boolean isIdPrefix(String s, int length) {
        // ID's rule checked by hand: every request path and every registry key passes here, and the
        // matcher was a twentieth of a listing's work. IdsTest holds it to ID on random input.
        if (length < 3 || length > 63 || length > s.length()) {
            return false;
        }
        int last = length - 1;
        for (int i = 0; i <= last; i++) {
            char c = s.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && (c != '-' || i == 0 || i == last)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Tells whether {@code s} is a valid template version.
     *
     * @param s candidate, may be null
     * @return true only for a syntactically valid version
     */
    public static boolean isVersion(String s) {
        return s != null && VERSION.matcher(s).matches();
    }
}
