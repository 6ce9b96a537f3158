package io.dogama.agent.policy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The administrator's customLabelPrefixes (SPEC section 11): 1 to 32 distinct entries. */
class LabelKeysTest {
    @Test
    void oneToThirtyTwoPrefixesAreAccepted() {
        List<String> prefixes = new ArrayList<>();
        for (int i = 0; i < LabelKeys.MAX_PREFIXES; i++) {
            prefixes.add("team" + i + ".");
        }
        assertEquals(List.of(), LabelKeys.prefixProblems(prefixes));
        assertEquals(List.of(), LabelKeys.prefixProblems(List.of("owner")));
        prefixes.add("extra.");
        assertEquals(List.of("customLabelPrefixes: count"), LabelKeys.prefixProblems(prefixes));
        assertEquals(List.of("customLabelPrefixes: count"), LabelKeys.prefixProblems(List.of()));
    }
}
