package io.dogama.agent.core;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one syntax of the IP literals the agent takes (the configuration's listen address and {@code hostIps}, a
 * plan's and a port check's {@code hostIp}) and the one way they are compared. An address has many spellings
 * ({@code ::}, {@code 0:0:0:0:0:0:0:0}, {@code ::0}; {@code 127.0.0.1} and {@code ::ffff:127.0.0.1}), and the engine
 * publishes each under its own: compared as written, two spellings of one address let two instances claim one
 * host port. So every literal the agent takes must already be in its canonical form, and every address the engine
 * reports is brought to it ({@link HostPort}).
 */
public final class IpLiteral {
    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    /** No brackets, no zone ({@code %eth0}): an address, never an interface or a host name. */
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private IpLiteral() {
    }

    /**
     * @param s candidate text
     * @return its canonical form, as the engine writes it (Go's {@code net.IP.String}): an IPv4 address in
     *         dotted-decimal form without leading zeros; an IPv6 address as RFC 5952 writes it (lower case, no
     *         leading zeros, the longest run of two or more zero groups, the first of equal ones, as
     *         {@code ::}); an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) as its IPv4 address. Empty
     *         when {@code s} is no literal (a name, a zone, brackets, a short IPv4 form)
     */
    public static Optional<String> canonical(String s) {
        if (IPV4.matcher(s).matches()) {
            return Optional.of(s);
        }
        if (s.indexOf(':') < 0 || !IPV6_CHARS.matcher(s).matches()) {
            return Optional.empty();
        }
        InetAddress a;
        try {
            a = Inet6Address.ofLiteral(s);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return Optional.of(a instanceof Inet4Address ? a.getHostAddress() : rfc5952(a.getAddress()));
    }

    /**
     * @param s candidate text
     * @return true if {@code s} is an IP literal written in its {@linkplain #canonical canonical form}
     */
    public static boolean isCanonical(String s) {
        return canonical(s).filter(s::equals).isPresent();
    }

    /**
     * @param s a canonical literal, or the empty text the engine reports for an unset address
     * @return true for the addresses that mean every address: {@code 0.0.0.0}, {@code ::} and the empty text
     */
    public static boolean isWildcard(String s) {
        return s.isEmpty() || "0.0.0.0".equals(s) || "::".equals(s);
    }

    private static String rfc5952(byte[] b) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1; // a lone zero group is written, never compressed
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(g[i]));
        }
        return out.toString();
    }
}
