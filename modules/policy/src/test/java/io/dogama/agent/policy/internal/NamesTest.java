package io.dogama.agent.policy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Name syntax used by the image and network rules. */
class NamesTest {
    @Test
    void repositoriesCompareInDockersFamiliarForm() {
        assertEquals("dogama/demo-http", Names.familiarRepository("dogama/demo-http:1"));
        assertEquals("dogama/demo-http", Names.familiarRepository("docker.io/dogama/demo-http@sha256:" + "a".repeat(64)));
        assertEquals("busybox", Names.familiarRepository("docker.io/library/busybox:1.36"));
        assertEquals("busybox", Names.familiarRepository("busybox"), "no tag, no path");
        assertEquals("", Names.familiarRepository("@sha256:" + "a".repeat(64)), "a digest alone names no repository");
        // A registry port is not a tag.
        assertEquals("127.0.0.1:5000/dogama/x", Names.familiarRepository("127.0.0.1:5000/dogama/x"));
        assertEquals("127.0.0.1:5000/dogama/x", Names.familiarRepository("127.0.0.1:5000/dogama/x:2@sha256:"
                + "b".repeat(64)));
    }

    @Test
    void imageReferenceSyntax() {
        for (String ok : List.of("dogama/demo-http:1", "registry.example/dogama/minecraft@sha256:" + "a".repeat(64),
                "127.0.0.1:5000/a/b_c__d:v1.2-rc", "busybox")) {
            assertTrue(Names.IMAGE_REFERENCE.matcher(ok).matches(), ok);
        }
        for (String bad : List.of("Dogama/x", "x:", ":1", "x//y", "x@sha256:abc", "-x", "x y")) {
            assertFalse(Names.IMAGE_REFERENCE.matcher(bad).matches(), bad);
        }
    }

    @Test
    void forbiddenNetworksInAnyCase() {
        for (String n : List.of("host", "Host", "none", "bridge", "default", "container:abc", "CONTAINER:x", "a:b")) {
            assertTrue(Names.isForbiddenNetwork(n), n);
        }
        assertFalse(Names.isForbiddenNetwork("dogama-games"));
        assertFalse(Names.isForbiddenNetwork("hosting"));
    }

    @Test
    void aNameTheEngineCouldTakeForTheStartOfANetworkIdIsNeverApprovable() {
        for (String n : List.of("db", "cafe", "a", "0", "2024", "0123456789abcdef".repeat(3))) {
            assertTrue(Names.isForbiddenNetwork(n), n);
        }
        // IDs are lower-case hex: one other character and no ID can begin with the name
        for (String n : List.of("db1x", "DB", "Cafe", "cafe-net", "db_", "g")) {
            assertFalse(Names.isForbiddenNetwork(n), n);
        }
    }

    @Test
    void theCanonicalFormRefusesUnpairedSurrogates() {
        assertThrows(IllegalArgumentException.class, () -> Canonical.json("a\ud800"));
        assertThrows(IllegalArgumentException.class, () -> Canonical.json("\udc00"));
        assertEquals("\"\ud83d\ude00\"", new String(Canonical.json("\ud83d\ude00"), java.nio.charset.StandardCharsets.UTF_8));
        assertThrows(IllegalArgumentException.class, () -> Canonical.json("\ud800a"), "a high surrogate before a letter");
        assertThrows(IllegalArgumentException.class, () -> Canonical.json(1L << 53));
        assertThrows(IllegalArgumentException.class, () -> Canonical.json(-(1L << 53)));
    }

    /** RFC 8785 and I-JSON: integers up to 2^53 - 1 either way are exact, and written as they are. */
    @Test
    void theCanonicalFormWritesTheLargestExactIntegersBothWays() {
        long max = (1L << 53) - 1;
        assertEquals("9007199254740991", new String(Canonical.json(max), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("-9007199254740991", new String(Canonical.json(-max), java.nio.charset.StandardCharsets.UTF_8));
    }
}
