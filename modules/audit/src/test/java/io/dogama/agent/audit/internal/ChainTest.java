package io.dogama.agent.audit.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * A line's MAC is HMAC-SHA-256(key, previous MAC || body), byte for byte as audit logs written before session 30 (with
 * the JDK's Mac) state it: the JDK's Mac is the oracle, so that a change of what is MAC'd cannot pass unnoticed.
 */
class ChainTest {
    @Test
    void theMacIsTheSameHmacOverThePreviousMacAndTheBodyAsBefore() throws Exception {
        SplittableRandom random = new SplittableRandom(30L);
        for (int i = 0; i < 50; i++) {
            byte[] key = new byte[Chain.MAC_BYTES];
            random.nextBytes(key);
            // The first line's previous MAC is the all-zero genesis; the others any MAC.
            byte[] previous = i == 0 ? Chain.GENESIS.clone() : new byte[Chain.MAC_BYTES];
            if (i > 0) {
                random.nextBytes(previous);
            }
            byte[] body = new byte[random.nextInt(0, 400)];
            random.nextBytes(body);
            Mac oracle = Mac.getInstance("HmacSHA256");
            oracle.init(new SecretKeySpec(key, "HmacSHA256"));
            oracle.update(previous);
            assertArrayEquals(oracle.doFinal(body), new Chain(key).mac(previous, body));
        }
    }
}
