package io.dogama.agent.policy.internal;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A template's env pattern, kept to what matches in time about linear in the value. java.util.regex backtracks: a
 * pattern such as {@code (.*a){12}} takes time that grows as a high power of the value's length, or exponentially, on
 * a value it does not match, and a signed request chooses the value (up to 4,096 characters). Templates are the
 * administrator's, but a pattern's cost is not plain to see. Two bounds:
 * <ul>
 *   <li>a template is refused whose pattern repeats a group that holds a quantifier or an alternation (the shapes that
 *       backtrack), or that uses a back-reference ({@link #backtracks});</li>
 *   <li>a match reads the value through a count of character reads, and one that reads more than {@link #MAX_READS}
 *       of them, or recurses deeper than its thread's stack, is no match. The count sees only reads: work at the
 *       value's end, where the matcher reads nothing, is bounded by the first rule alone.</li>
 * </ul>
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

    /**
     * @param pattern a pattern as written (it compiles)
     * @return true if it repeats (more than once) a group holding a quantifier or an alternation ({@code (a+)+},
     *         {@code (.*a){12}}, {@code (a|aa)*}), or has a back-reference. Cautious: {@code [a-z]+(?:-[a-z]+)*}, whose
     *         separator keeps it linear, is refused too (write {@code [a-z-]+}) ({@code \1}, {@code \k<name>})
     */
    public static boolean backtracks(String pattern) {
        // One frame per open group: whether its body so far holds a quantifier or an alternation.
        java.util.ArrayDeque<boolean[]> groups = new java.util.ArrayDeque<>();
        groups.push(new boolean[2]);
        boolean[] lastGroup = null; // the group just closed, if the last atom was one
        int n = pattern.length();
        for (int i = 0; i < n; i++) {
            char c = pattern.charAt(i);
            boolean[] closed = null;
            switch (c) {
                case '\\' -> {
                    if (i + 1 < n && (Character.isDigit(pattern.charAt(i + 1)) && pattern.charAt(i + 1) != '0'
                            || pattern.charAt(i + 1) == 'k')) {
                        return true;
                    }
                    if (i + 1 < n && pattern.charAt(i + 1) == 'Q') {
                        int end = pattern.indexOf("\\E", i + 2);
                        i = end < 0 ? n : end + 1;
                    } else {
                        i++;
                    }
                }
                case '[' -> i = classEnd(pattern, i);
                case '(' -> {
                    groups.push(new boolean[2]);
                    if (i + 1 < n && pattern.charAt(i + 1) == '?') {
                        i++; // (?:, (?=, (?<name>, (?i): the modifier is no quantifier
                    }
                }
                case ')' -> {
                    closed = groups.pop();
                    if (groups.isEmpty()) {
                        return true; // unbalanced: Pattern would not have compiled it
                    }
                    groups.peek()[0] |= closed[0];
                    groups.peek()[1] |= closed[1];
                }
                case '|' -> groups.peek()[1] = true;
                case '*', '+', '?', '{' -> {
                    boolean repeats = c != '?'; // at most once cannot repeat a choice
                    if (c == '{') {
                        int end = pattern.indexOf('}', i);
                        String times = end < 0 ? "" : pattern.substring(i + 1, end);
                        repeats = !List.of("0", "1", "0,0", "0,1", "1,1").contains(times);
                        i = end < 0 ? n : end;
                    }
                    if (repeats && lastGroup != null && (lastGroup[0] || lastGroup[1])) {
                        return true;
                    }
                    groups.peek()[0] = true;
                    // a lazy or possessive mark belongs to the quantifier
                    if (i + 1 < n && (pattern.charAt(i + 1) == '?' || pattern.charAt(i + 1) == '+')) {
                        i++;
                    }
                }
                default -> {
                }
            }
            lastGroup = closed;
        }
        return false;
    }

    /** @return the index of the {@code ]} that ends the class opened at {@code open} (classes nest in Java) */
    private static int classEnd(String p, int open) {
        int depth = 0;
        for (int i = open; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                depth++;
                if (i + 1 < p.length() && p.charAt(i + 1) == '^') {
                    i++;
                }
                if (i + 1 < p.length() && p.charAt(i + 1) == ']') {
                    i++; // a ']' first in a class is a literal
                }
            } else if (c == ']' && --depth == 0) {
                return i;
            }
        }
        return p.length();
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
