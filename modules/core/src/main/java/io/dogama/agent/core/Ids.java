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
        return s != null && ID.matcher(s).matches();
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
