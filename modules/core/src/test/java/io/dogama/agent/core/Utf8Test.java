package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Utf8Test {
    @Test
    void pairsAreWellFormedHalvesAreNot() {
        assertTrue(Utf8.wellFormed(""));
        assertTrue(Utf8.wellFormed("plain ascii"));
        assertTrue(Utf8.wellFormed("\u00e9\u4e2d\ud83d\ude00"));
        assertFalse(Utf8.wellFormed("\ud800"));
        assertFalse(Utf8.wellFormed("a\udc00b"));
        assertFalse(Utf8.wellFormed("\ude00\ud83d"), "a pair in the wrong order");
        assertFalse(Utf8.wellFormed("\ud83d\ud83d\ude00"), "a high surrogate followed by a whole pair");
        assertFalse(Utf8.wellFormed("ok\ud83d"), "a high surrogate at the end");
    }

    /** The JDK's own UTF-8 encoder is the oracle, on strings dense in surrogates. */
    @Test
    void agreesWithTheJdksEncoderOnRandomStrings() {
        SplittableRandom r = new SplittableRandom(37);
        char[] alphabet = {'a', '\u00e9', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00', '\uffff'};
        for (int n = 0; n < 100_000; n++) {
            StringBuilder s = new StringBuilder();
            int len = r.nextInt(7);
            for (int i = 0; i < len; i++) {
                s.append(alphabet[r.nextInt(alphabet.length)]);
            }
            String t = s.toString();
            assertEquals(StandardCharsets.UTF_8.newEncoder().canEncode(t), Utf8.wellFormed(t), t::toString);
        }
    }
}
