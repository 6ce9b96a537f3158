package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The timestamp parser by position gives exactly the instants java.time's ISO parser gives, and refuses the rest. */
class HeaderSyntaxTest {
    private static final Pattern SHAPE =
            Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z");

    /** The former implementation: the pattern, the ranges, then {@link Instant#parse}. */
    private static Instant reference(String v) {
        if (v.length() > 30 || !SHAPE.matcher(v).matches()) {
            return null;
        }
        if (two(v, 11) > 23 || two(v, 14) > 59 || two(v, 17) > 59) {
            return null;
        }
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static int two(String s, int at) {
        return (s.charAt(at) - '0') * 10 + (s.charAt(at + 1) - '0');
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999999Z", "2026-12-02T10:00:00.5Z", "1970-01-01T00:00:00.000000001Z",
        "1969-12-31T23:59:59.9Z", "2026-04-30T08:09:10.123456Z"})
    void realInstantsAreParsedAsJavaTimeParsesThem(String v) {
        assertEquals(Instant.parse(v), HeaderSyntax.timestamp(v));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z",
        "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z",
        "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00+00:00", "2026-1-01T00:00:00Z",
        "+2026-01-01T00:00:00Z", "2026-01-01T00:00:00", "", "2026-01-01T00:00:00Z "})
    void whatIsNotOneRealInstantInTheOneSpellingIsRefused(String v) {
        assertNull(HeaderSyntax.timestamp(v));
    }

    @Test
    void agreesWithTheFormerParserOnRandomTimestampShapes() {
        SplittableRandom r = new SplittableRandom(20261202L);
        for (int i = 0; i < 200_000; i++) {
            StringBuilder b = new StringBuilder();
            b.append(digits(r, 4)).append('-').append(upTo(r, 13)).append('-').append(upTo(r, 32)).append('T')
                    .append(upTo(r, 25)).append(':').append(upTo(r, 61)).append(':').append(upTo(r, 61));
            int fraction = r.nextInt(11);
            if (fraction > 0) {
                b.append('.').append(digits(r, fraction));
            }
            b.append('Z');
            if (r.nextInt(20) == 0) {
                b.setCharAt(r.nextInt(b.length()), (char) r.nextInt(0x20, 0x7f));
            }
            String v = b.toString();
            assertEquals(reference(v), HeaderSyntax.timestamp(v), v);
        }
    }

    private static String digits(SplittableRandom r, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('0' + r.nextInt(10)));
        }
        return b.toString();
    }

    /** Two digits, mostly in 00..bound-1, sometimes anything. */
    private static String upTo(SplittableRandom r, int bound) {
        int v = r.nextInt(8) == 0 ? r.nextInt(100) : r.nextInt(bound);
        return v < 10 ? "0" + v : Integer.toString(v);
    }
}
