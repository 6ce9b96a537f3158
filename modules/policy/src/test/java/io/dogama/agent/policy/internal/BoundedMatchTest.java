package io.dogama.agent.policy.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.policy.Template;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A template's env pattern is matched against a value a signed request chooses: a backtracking pattern must not pin
 * a request thread. Java's engine remembers enough to make {@code (a+)+} cheap, but not {@code (.*a){12}}, whose
 * work grows as the value's length to the 12th power (0.6 s at 24 characters here; the first case below, 64).
 */
class BoundedMatchTest {
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBacktrackingPatternEndsAtItsBoundAsNoMatch() {
        Template.EnvRule rule = new Template.EnvRule(Pattern.compile("(.*a){12}"), false);
        assertFalse(rule.accepts("a".repeat(64) + "!"));
        // A value it matches cheaply is accepted.
        assertTrue(rule.accepts("a".repeat(64)));
    }

    /** The template's rule: a repeated group that holds a quantifier or an alternation, or a back-reference. */
    @Test
    void patternsThatBacktrackAreToldApart() {
        for (String p : new String[] {"^(a+)+$", "(.*a){12}", "(a|aa)*c", "(?:[a-z]*|[0-9]*){24}!", "((a)b*)+",
                // cautious: its separator keeps this one linear, but the rule cannot tell
                "[a-z]{1,8}(?:-[a-z]{1,8})*", "(?<w>a)\\k<w>", "(a)\\1", "((?:a|b)c)*", "(a*)*b", "(a+?)+",
                "(?:a{1,3}){2,}"}) {
            assertTrue(BoundedMatch.backtracks(p), p);
        }
        for (String p : new String[] {"^[A-Za-z0-9 ,.!?-]{0,64}$", "[a-z]*", "^(?:ab)+$", "(abc){3}", "a|b|c",
                "^[(]+[|]*\\(+$", "(on|off)?", "(x|y){0,1}z", "\\Q(a+)+\\E", "[[a-z]&&[^x]]+", "^\\d{1,5}$",
                "(?i)yes|no", "\\0101+"}) {
            assertFalse(BoundedMatch.backtracks(p), p);
        }
    }

    /**
     * What the rule reads as text, not as structure: a group nested in a group still counts, a quotation (closed or
     * not) and a class (an escaped ']', a ']' first in it, after '^' or not) hide what they hold, a lazy or possessive
     * mark is part of its quantifier. Where the comments flag hides from Java what the rule reads, the rule never
     * throws, and a ')' it cannot pair is refused.
     */
    @Test
    void quotationsClassesAndMarksAreReadAsJavaReadsThem() {
        for (String p : new String[] {"((a+))+", "(?x)a#)", "(?:(?:a|b))*"}) {
            Pattern.compile(p);
            assertTrue(BoundedMatch.backtracks(p), p);
        }
        for (String p : new String[] {"\\Q(a+)+", "\\Qa\\E\\Q(a+)+\\E", "x\\Q(a+)+", "[\\](a+)+]", "[](a+)+]",
                "[^](a+)+]", "a+?(b)c", "a??(b)c", "a++(b)c", "(?x)a#{", "(?x)a#["}) {
            Pattern.compile(p);
            assertFalse(BoundedMatch.backtracks(p), p);
        }
    }

    @Test
    void aLinearPatternReadsEveryValueUpToTheLongestInFull() {
        Pattern demo = Pattern.compile("^[A-Za-z0-9 ,.!?-]{0,64}$");
        assertTrue(BoundedMatch.matches(demo, "Hello, world!"));
        assertFalse(BoundedMatch.matches(demo, "Hello\nworld"));
        Pattern any = Pattern.compile("[a-z]*");
        assertTrue(BoundedMatch.matches(any, "z".repeat(4096)), "a 4,096-character value of a linear pattern");
        assertFalse(BoundedMatch.matches(any, "z".repeat(4095) + "Z"));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aMatchThatRecursesPastTheStackIsNoMatch() {
        // Alternation in a loop recurses once a character in java.util.regex.
        Pattern deep = Pattern.compile("(?:a|b)*c");
        String value = "ab".repeat(2048) + "!";
        assertTrue(BoundedMatch.matches(deep, "abc"));
        // On a small stack it overflows: the answer is a plain boolean (no match), never an Error.
        boolean[] answered = new boolean[1];
        Thread t = new Thread(null, () -> {
            BoundedMatch.matches(deep, value);
            answered[0] = true;
        }, "small-stack", 64 * 1024);
        t.start();
        try {
            t.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertTrue(answered[0], "the match threw instead of answering");
    }
}
