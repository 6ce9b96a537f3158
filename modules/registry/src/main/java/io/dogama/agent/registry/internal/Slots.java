package io.dogama.agent.registry.internal;

import io.dogama.agent.core.Ids;

/**
 * Each instance is stored under two keys, {@code <id>#0} and {@code <id>#1}: generation {@code g} lives in slot
 * {@code g % 2}, and the key is bound into the value's MAC. A write of generation {@code g + 1} supersedes
 * generation {@code g - 1}, never the current one; readers take the higher of two consecutive generations, and
 * two slots that are not consecutive (copies spliced from different times) read as tampered.
 */
final class Slots {
    private static final String[] SUFFIX = {"#0", "#1"};

    private Slots() {
    }

    static String key(String instanceId, long generation) {
        return instanceId + SUFFIX[(int) Math.floorMod(generation, 2L)];
    }

    /** @return 0 or 1 for a slot key of a valid instance ID, else -1 (the sentinel, a forged key) */
    static int slotOf(String key) {
        int n = key.length();
        if (n < 3 || key.charAt(n - 2) != '#' || (key.charAt(n - 1) != '0' && key.charAt(n - 1) != '1')) {
            return -1;
        }
        return Ids.isIdPrefix(key, n - 2) ? key.charAt(n - 1) - '0' : -1;
    }

    /** @return the instance ID of a slot key ({@link #slotOf} must be 0 or 1) */
    static String instanceOf(String key) {
        return key.substring(0, key.length() - 2);
    }
}
