package io.dogama.agent.auth.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/** Strict syntax of the three authentication headers (SPEC section 3). */
public final class HeaderSyntax {
    /** Length of a base64url HMAC-SHA-256 without padding: 32 bytes in 43 characters. */
    public static final int SIGNATURE_CHARS = 43;
    /** Shortest nonce: 22 characters carry 132 bits, the first length above 128. */
    public static final int MIN_NONCE_CHARS = 22;
    /** Longest nonce. */
    public static final int MAX_NONCE_CHARS = 64;

    /**
     * RFC 3339 in UTC with an upper-case {@code T} and {@code Z}, then an optional fraction of 1 to 9
     * digits, then {@code Z}; {@code d} stands for one ASCII digit. Numeric offsets, even {@code +00:00},
     * and lower-case letters are refused: one spelling per instant is less to get wrong.
     */
    private static final String TIMESTAMP = "dddd-dd-ddTdd:dd:dd";
    private static final int MAX_TIMESTAMP_CHARS = TIMESTAMP.length() + 1 + 9 + 1;

    private HeaderSyntax() {
    }

    /**
     * @param value header value
     * @return the instant, or null if the value is not a strict RFC 3339 UTC timestamp of a real date
     */
    public static Instant timestamp(String value) {
        if (!timestampShape(value)) {
            return null;
        }
        // ISO parsing would accept 24:00:00 (as the next day) and a leap second 60; RFC 3339 clients never
        // need either, so one spelling per instant stays the rule.
        int hour = twoDigits(value, 11);
        int minute = twoDigits(value, 14);
        int second = twoDigits(value, 17);
        if (hour > 23 || minute > 59 || second > 59) {
            return null;
        }
        // The fields by position (the shape fixed them), not java.time's formatter: that parser was a
        // twentieth of the agent's CPU per request under load, and gives the same instants (HeaderSyntaxTest).
        long day;
        try {
            day = LocalDate.of(twoDigits(value, 0) * 100 + twoDigits(value, 2), twoDigits(value, 5),
                    twoDigits(value, 8)).toEpochDay();
        } catch (DateTimeException e) {
            return null; // e.g. 2026-02-30 has the shape but is not a date
        }
        int nanos = 0;
        int from = TIMESTAMP.length() + 1; // the fraction's first digit, after the point
        int digits = value.length() - 1 - from; // negative when there is no fraction
        for (int i = 0; i < 9; i++) {
            nanos = nanos * 10 + (i < digits ? value.charAt(from + i) - '0' : 0);
        }
        return Instant.ofEpochSecond(day * 86_400 + hour * 3_600 + minute * 60 + second, nanos);
    }

    /** @return true if {@code v} is {@link #TIMESTAMP}, an optional point and 1 to 9 digits, then {@code Z} */
    private static boolean timestampShape(String v) {
        int n = v.length();
        int fixed = TIMESTAMP.length();
        // no fraction (fixed + 1), or a point and at least one digit (fixed + 3 or more)
        if (n != fixed + 1 && (n < fixed + 3 || n > MAX_TIMESTAMP_CHARS) || v.charAt(n - 1) != 'Z') {
            return false;
        }
        for (int i = 0; i < fixed; i++) {
            char want = TIMESTAMP.charAt(i);
            if (want == 'd' ? !digit(v.charAt(i)) : v.charAt(i) != want) {
                return false;
            }
        }
        if (n > fixed + 1 && v.charAt(fixed) != '.') {
            return false;
        }
        for (int i = fixed + 1; i < n - 1; i++) {
            if (!digit(v.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int twoDigits(String s, int at) {
        return (s.charAt(at) - '0') * 10 + (s.charAt(at + 1) - '0');
    }

    /**
     * @param value header value
     * @return true for base64url without padding, 22 to 64 characters, of a length base64 can produce
     */
    public static boolean nonce(String value) {
        int n = value.length();
        if (n < MIN_NONCE_CHARS || n > MAX_NONCE_CHARS || n % 4 == 1) {
            return false;
        }
        return allBase64Url(value);
    }

    /**
     * @param value  the Authorization header value
     * @param scheme the only accepted scheme, compared exactly
     * @return the signature part, or null if the value is not {@code <scheme> <43 base64url characters>}
     */
    public static String signature(String value, String scheme) {
        if (value.length() != scheme.length() + 1 + SIGNATURE_CHARS
                || !value.startsWith(scheme) || value.charAt(scheme.length()) != ' ') {
            return null;
        }
        String signature = value.substring(scheme.length() + 1);
        return allBase64Url(signature) ? signature : null;
    }

    /**
     * @param value method or raw path
     * @return true if it contains no control character or space, which could make the canonical string ambiguous
     */
    public static boolean printable(String value) {
        if (value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    private static boolean allBase64Url(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!SecretFileParser.isBase64Url(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
