package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The agent's HMAC-SHA-256: RFC 4231's vectors, and the JDK's {@code Mac} as a second, independent implementation. */
class HmacSha256Test {
    private static final HexFormat HEX = HexFormat.of();

    private static byte[] repeat(int b, int n) {
        byte[] a = new byte[n];
        Arrays.fill(a, (byte) b);
        return a;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void rfc4231Vectors() {
        byte[] k4 = new byte[25];
        for (int i = 0; i < k4.length; i++) {
            k4[i] = (byte) (i + 1);
        }
        // 1 to 4: keys shorter than the block; 6 and 7: a 131-byte key, hashed first (RFC 2104 section 2).
        assertEquals("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
                HEX.formatHex(new HmacSha256(repeat(0x0b, 20)).mac(ascii("Hi There"))));
        assertEquals("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
                HEX.formatHex(new HmacSha256(ascii("Jefe")).mac(ascii("what do ya want for nothing?"))));
        assertEquals("773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
                HEX.formatHex(new HmacSha256(repeat(0xaa, 20)).mac(repeat(0xdd, 50))));
        assertEquals("82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
                HEX.formatHex(new HmacSha256(k4).mac(repeat(0xcd, 50))));
        assertEquals("a3b6167473100ee06e0c796c2955552b",
                HEX.formatHex(new HmacSha256(repeat(0x0c, 20)).mac(ascii("Test With Truncation"))).substring(0, 32));
        assertEquals("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
                HEX.formatHex(new HmacSha256(repeat(0xaa, 131))
                        .mac(ascii("Test Using Larger Than Block-Size Key - Hash Key First"))));
        assertEquals("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
                HEX.formatHex(new HmacSha256(repeat(0xaa, 131)).mac(ascii("This is a test using a larger than "
                        + "block-size key and a larger than block-size data. The key needs to be hashed before being "
                        + "used by the HMAC algorithm."))));
    }

    @Test
    void agreesWithTheJdksMacOnEveryKeyLengthAroundTheBlockAndRandomMessages() throws Exception {
        SplittableRandom random = new SplittableRandom(20261206L);
        for (int keyLength = 0; keyLength <= 200; keyLength++) {
            byte[] key = new byte[keyLength];
            random.nextBytes(key);
            byte[] message = new byte[random.nextInt(0, 300)];
            random.nextBytes(message);
            assertArrayEquals(jdk(key, message), new HmacSha256(key).mac(message), "key of " + keyLength + " bytes");
        }
    }

    @Test
    void aMessageInPiecesGivesTheMacOfTheWhole() throws Exception {
        SplittableRandom random = new SplittableRandom(7L);
        byte[] key = new byte[32];
        random.nextBytes(key);
        byte[] message = new byte[1000];
        random.nextBytes(message);
        HmacSha256.Computation c = new HmacSha256(key).begin();
        int at = 0;
        while (at < message.length) {
            int n = Math.min(message.length - at, random.nextInt(0, 130));
            c.update(message, at, n);
            at += n;
        }
        byte[] out = new byte[HmacSha256.LENGTH + 10];
        c.finish(out, 5);
        assertArrayEquals(jdk(key, message), Arrays.copyOfRange(out, 5, 5 + HmacSha256.LENGTH));
        assertArrayEquals(new byte[5], Arrays.copyOf(out, 5), "nothing written before the offset");
        assertArrayEquals(new byte[5], Arrays.copyOfRange(out, 5 + HmacSha256.LENGTH, out.length),
                "nothing written after the MAC");
    }

    @Test
    void aKeyIsNotKeptAndTheCallerMayWipeIt() throws Exception {
        byte[] key = repeat(0x42, 32);
        HmacSha256 hmac = new HmacSha256(key);
        Arrays.fill(key, (byte) 0);
        assertArrayEquals(jdk(repeat(0x42, 32), ascii("m")), hmac.mac(ascii("m")));
        byte[] longKey = repeat(0x43, 100);
        HmacSha256 hashedKey = new HmacSha256(longKey);
        assertArrayEquals(repeat(0x43, 100), longKey, "a long key is hashed, not changed in place");
        assertArrayEquals(jdk(longKey, ascii("m")), hashedKey.mac(ascii("m")));
    }

    @Test
    void aFinishedComputationRefusesMore() {
        HmacSha256.Computation c = new HmacSha256(new byte[32]).begin();
        c.finish();
        assertThrows(IllegalStateException.class, () -> c.update(new byte[1]));
        assertThrows(IllegalStateException.class, c::finish);
        HmacSha256.Computation d = new HmacSha256(new byte[32]).begin();
        assertThrows(IndexOutOfBoundsException.class, () -> d.finish(new byte[40], 9));
        assertThrows(IndexOutOfBoundsException.class, () -> d.finish(new byte[40], -1));
    }

    @Test
    void oneKeySharedByManyThreadsGivesEachItsOwnMac() throws Exception {
        byte[] key = repeat(0x17, 32);
        HmacSha256 shared = new HmacSha256(key);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                runs.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 2_000; i++) {
                        byte[] message = new byte[random.nextInt(0, 100)];
                        random.nextBytes(message);
                        assertArrayEquals(jdk(key, message), shared.mac(message));
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static byte[] jdk(byte[] key, byte[] message) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        // The JCE refuses an empty key; RFC 2104 pads it with zeros like any short key, so 64 zero bytes are the same key.
        mac.init(new SecretKeySpec(key.length == 0 ? new byte[64] : key, "HmacSHA256"));
        return mac.doFinal(message);
    }
}
