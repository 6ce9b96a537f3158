package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HexFormat;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** One spelling per address: the form the engine writes (RFC 5952, Go's {@code net.IP.String}). */
class IpLiteralTest {
    @ParameterizedTest
    @CsvSource({
            "0:0:0:0:0:0:0:0, ::",
            "::0, ::",
            "0::, ::",
            "0:0:0:0:0:0:0:1, ::1",
            "2001:DB8::1, 2001:db8::1",
            "2001:0db8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
            // a lone zero group is written, the longest run compressed, the first of two equal ones
            "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
            "2001:db8::1:0:0:1, 2001:db8::1:0:0:1",
            "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
            "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
            "fe80:0:0:0:0:0:0:0, fe80::",
            // IPv4-mapped: the engine publishes it as the IPv4 address
            "::ffff:127.0.0.1, 127.0.0.1",
            "::FFFF:7f00:1, 127.0.0.1",
            // IPv4-compatible (deprecated) is an IPv6 address
            "::1.2.3.4, ::102:304",
            "127.0.0.1, 127.0.0.1",
            "0.0.0.0, 0.0.0.0"})
    void everySpellingHasOneCanonicalForm(String spelling, String canonical) {
        assertEquals(Optional.of(canonical), IpLiteral.canonical(spelling));
        assertTrue(IpLiteral.isCanonical(canonical), canonical);
        assertEquals(spelling.equals(canonical), IpLiteral.isCanonical(spelling), spelling);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "localhost", "127.1", "127.000.0.1", "0127.0.0.1", "256.0.0.1", "1.2.3.4.5", "[::1]",
            "fe80::1%eth0", "fe80::1%1", ":::", "1::2::3", "12345::", " ::1", "::1 ", "0x7f.0.0.1", "::g"})
    void whatIsNoLiteralHasNone(String s) {
        assertEquals(Optional.empty(), IpLiteral.canonical(s), s);
        assertFalse(IpLiteral.isCanonical(s), s);
    }

    /** Random addresses, written fully and with leading zeros: one canonical form, the same bytes, stable. */
    @Test
    void theCanonicalFormNamesTheSameAddressAndIsStable() throws Exception {
        SplittableRandom random = new SplittableRandom(5952);
        for (int n = 0; n < 20_000; n++) {
            byte[] b = new byte[16];
            for (int i = 0; i < 16; i += 2) {
                // mostly zero groups, so that runs of every length and place occur
                int g = random.nextInt(3) == 0 ? random.nextInt(0x10000) : 0;
                b[i] = (byte) (g >> 8);
                b[i + 1] = (byte) g;
            }
            if (b[10] == (byte) 0xff && b[11] == (byte) 0xff) {
                continue;
            }
            StringBuilder full = new StringBuilder();
            for (int i = 0; i < 16; i += 2) {
                full.append(i == 0 ? "" : ":").append(HexFormat.of().withUpperCase().formatHex(b, i, i + 2));
            }
            String c = IpLiteral.canonical(full.toString()).orElseThrow();
            assertArrayEquals(b, InetAddress.ofLiteral(c).getAddress(), c);
            assertEquals(Optional.of(c), IpLiteral.canonical(c), "stable: " + c);
            assertFalse(c.contains(":::") || c.indexOf("::") != c.lastIndexOf("::"), c);
            assertFalse(c.matches(".*(^|:)0[0-9a-f].*"), "no leading zero: " + c);
        }
    }

    @Test
    void wildcardsAreTheUnspecifiedAddressesAndTheEnginesUnsetOne() {
        assertTrue(IpLiteral.isWildcard("0.0.0.0"));
        assertTrue(IpLiteral.isWildcard("::"));
        assertTrue(IpLiteral.isWildcard(""));
        assertFalse(IpLiteral.isWildcard("127.0.0.1"));
        assertFalse(IpLiteral.isWildcard("::1"));
    }

    /** The attack: two spellings of one address were two bindings that did not collide. */
    @Test
    void twoSpellingsOfOneAddressCollide() {
        HostPort a = new HostPort("0:0:0:0:0:0:0:1", 20080, Protocol.TCP);
        HostPort b = new HostPort("::1", 20080, Protocol.TCP);
        assertEquals("::1", a.hostIp(), "kept in its canonical form");
        assertTrue(a.conflictsWith(b));
        assertTrue(new HostPort("::ffff:127.0.0.1", 20080, Protocol.TCP)
                .conflictsWith(new HostPort("127.0.0.1", 20080, Protocol.TCP)));
        assertTrue(new HostPort("0:0:0:0:0:0:0:0", 20080, Protocol.TCP)
                .conflictsWith(new HostPort("10.0.0.1", 20080, Protocol.TCP)), "a spelling of the wildcard");
        assertFalse(new HostPort("::1", 20080, Protocol.TCP).conflictsWith(new HostPort("::2", 20080, Protocol.TCP)));
    }
}
