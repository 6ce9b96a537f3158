package io.dogama.agent.registry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * A record's MAC is HMAC-SHA-256(key, "dogama-registry-record-v1\0" || len(mapKey) as 4 bytes big-endian || mapKey ||
 * body), byte for byte as registry files written before session 30 (with the JDK's Mac) state it: the JDK's Mac is
 * the oracle here, so that a change of the binding cannot pass unnoticed.
 */
class RecordMacTest {
    private static byte[] oracle(byte[] key, String mapKey, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        byte[] k = mapKey.getBytes(StandardCharsets.UTF_8);
        mac.update("dogama-registry-record-v1\0".getBytes(StandardCharsets.US_ASCII));
        mac.update(ByteBuffer.allocate(4).putInt(k.length).array());
        mac.update(k);
        return mac.doFinal(body);
    }

    @Test
    void theMacIsTheSameHmacOverTheSameBytesAsBefore() throws Exception {
        SplittableRandom random = new SplittableRandom(30L);
        for (int i = 0; i < 50; i++) {
            byte[] key = new byte[RecordMac.KEY_BYTES];
            random.nextBytes(key);
            byte[] body = new byte[random.nextInt(0, 600)];
            random.nextBytes(body);
            String mapKey = "inst-" + i + (i % 2 == 0 ? "#0" : "#1");
            byte[] buf = Arrays.copyOf(body, body.length + RecordMac.MAC_BYTES);
            new RecordMac(key).sign(mapKey, buf, body.length);
            assertArrayEquals(body, Arrays.copyOf(buf, body.length), "the body is left as it was");
            assertArrayEquals(oracle(key, mapKey, body), Arrays.copyOfRange(buf, body.length, buf.length), mapKey);
            assertTrue(new RecordMac(key).verify(mapKey, buf));
        }
    }

    @Test
    void aMacVerifiesOnlyUnderItsOwnMapKeyAndKey() throws Exception {
        byte[] key = new byte[RecordMac.KEY_BYTES];
        key[0] = 1;
        byte[] body = "a record".getBytes(StandardCharsets.US_ASCII);
        byte[] buf = Arrays.copyOf(body, body.length + RecordMac.MAC_BYTES);
        System.arraycopy(oracle(key, "a#0", body), 0, buf, body.length, RecordMac.MAC_BYTES);
        assertTrue(new RecordMac(key).verify("a#0", buf), "a MAC the JDK's Mac made verifies");
        assertFalse(new RecordMac(key).verify("a#1", buf), "another map key");
        byte[] other = key.clone();
        other[31] = 1;
        assertFalse(new RecordMac(other).verify("a#0", buf), "another key");
        buf[0] ^= 1;
        assertFalse(new RecordMac(key).verify("a#0", buf), "another body");
    }
}
