package io.dogama.agent.core;

/**
 * THE rule for a string that has a UTF-8 form: no unpaired UTF-16 surrogate (a JSON escape such as {@code \ud800}
 * names half a character). The plan parser, the small request bodies and every other reader of the API's JSON ask
 * this one method, so that no two of them disagree on which strings exist.
 */
public final class Utf8 {
    private Utf8() {
    }

    /**
     * @param s a string, not null
     * @return false if it holds an unpaired surrogate
     */
    public static boolean wellFormed(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
