package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Ids#isId} checks by hand exactly what {@link Ids#ID} says. */
class IdsTest {
    @ParameterizedTest
    @ValueSource(strings = {"abc", "a-b", "0a9", "bench-0", "a1234567890123456789012345678901234567890123456789012345678901b"})
    void idsAreAccepted(String s) {
        assertTrue(Ids.isId(s), s);
        assertTrue(Ids.ID.matcher(s).matches(), s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ab", "-ab", "ab-", "aBc", "a_b", "a.b", "a b", "abc\n", "\u00e4bc", "a\u0661b",
        "a12345678901234567890123456789012345678901234567890123456789012b", "ab#0", "../x"})
    void whatIsNotAnIdIsRefused(String s) {
        assertFalse(Ids.isId(s), s);
        assertFalse(Ids.ID.matcher(s).matches(), s);
    }

    @Test
    void nullIsNotAnId() {
        assertFalse(Ids.isId(null));
    }

    @Test
    void agreesWithThePatternOnRandomStrings() {
        // Mostly the ID alphabet, with the characters around its ranges' edges and a few others.
        String alphabet = "abcxyz0189-`{/:AZ_.#\u00e4\u0130 ";
        SplittableRandom r = new SplittableRandom(20261202L);
        for (int i = 0; i < 200_000; i++) {
            int n = r.nextInt(70);
            StringBuilder b = new StringBuilder(n);
            for (int k = 0; k < n; k++) {
                b.append(r.nextInt(4) == 0 ? alphabet.charAt(r.nextInt(alphabet.length())) : "abz09-".charAt(r.nextInt(6)));
            }
            String s = b.toString();
            assertEquals(Ids.ID.matcher(s).matches(), Ids.isId(s), s);
            // The prefix form, as a registry key uses it: an ID and then anything.
            int length = n == 0 ? 0 : r.nextInt(n + 1);
            assertEquals(Ids.ID.matcher(s.substring(0, length)).matches(), Ids.isIdPrefix(s, length), s + " @" + length);
        }
    }

    @Test
    void aPrefixLongerThanTheStringIsNotAnId() {
        assertFalse(Ids.isIdPrefix("abc", 4));
        assertTrue(Ids.isIdPrefix("abc#0", 3));
        assertFalse(Ids.isIdPrefix("abc#0", 4));
    }
}
