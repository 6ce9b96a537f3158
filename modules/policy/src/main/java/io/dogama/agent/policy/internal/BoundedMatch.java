package io.dogama.agent.policy.internal;

import java.util.regex.Pattern;

/**
 * A whole-value match of a template's pattern with a bound on its work. java.util.regex backtracks: a pattern such as
 * {@code ^(a+)+$} takes time exponential in the value's length on a value it does not match, and a signed request
 * chooses the value (up to 4,096 characters). Templates are the administrator's, but a pattern's cost is not plain
 * to see. So the matcher reads the value through a count of character reads, and a match that reads more than
 * {@link #MAX_READS} of them, or recurses deeper than its thread's stack, is no match.
 */
public final class BoundedMatch {
    /**
     * Most character reads of one match: a linear pattern reads a 4,096-character value a few times; this bound lets
     * it read it 250 times over, a few milliseconds of work, and ends a backtracking one there.
     */
    public static final int MAX_READS = 1_000_000;

    private BoundedMatch() {
    }

    /**
     * @param pattern the template's pattern
     * @param value   the value
     * @return true if the whole value matches within the bound
     */
    public static boolean matches(Pattern pattern, String value) {
        try {
            return pattern.matcher(new Metered(value)).matches();
        } catch (Exhausted | StackOverflowError e) {
            return false;
        }
    }

    private static final class Exhausted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Exhausted() {
            super("policy: a pattern's match read more than its bound", null, false, false);
        }
    }

    /** The value, counting every character the matcher reads. */
    private static final class Metered implements CharSequence {
        private final String text;
        private int reads;

        Metered(String text) {
            this.text = text;
        }

        @Override
        public char charAt(int index) {
            if (++reads > MAX_READS) {
                throw new Exhausted();
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            // The matcher asks for one only for groups it hands out, which matches() never does.
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
