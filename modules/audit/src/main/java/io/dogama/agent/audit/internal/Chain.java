package io.dogama.agent.audit.internal;

import io.dogama.agent.audit.AuditEvent;
import io.dogama.agent.core.HmacSha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one definition of the line format and its MAC chain. A line is
 * <pre>{"seq":N,"time":"...","kind":"...",...,"mac":"&lt;64 hex&gt;"}\n</pre>
 * where the MAC is HMAC-SHA-256(key, previous line's MAC bytes || the line's bytes up to, not
 * including, {@code ,"mac":"}). The first line of a log chains to {@link #GENESIS} (32 zero bytes).
 * The sequence number starts at 1 and grows by one per line across every file, so that a removed,
 * repeated or moved line shows as a break in it, and a changed or forged line as a MAC that does
 * not match.
 */
public final class Chain {
    /** HMAC-SHA-256 output and key length. */
    public static final int MAC_BYTES = HmacSha256.LENGTH;
    /** The "previous MAC" of the first line. */
    static final byte[] GENESIS = new byte[MAC_BYTES];
    /** Longest line accepted by the verifier; a written line is far shorter (fields are bounded). */
    static final int MAX_LINE_BYTES = 4096;

    private static final String MAC_FIELD = ",\"mac\":\"";
    private static final Pattern LINE = Pattern.compile("^(\\{\"seq\":([1-9][0-9]{0,17}),.*)" + Pattern.quote(MAC_FIELD)
            + "([0-9a-f]{64})\"}$");
    private static final HexFormat HEX = HexFormat.of();

    private final HmacSha256 key;

    Chain(byte[] key) {
        if (key.length != MAC_BYTES) {
            throw new IllegalArgumentException("audit: key must be " + MAC_BYTES + " bytes");
        }
        this.key = new HmacSha256(key);
    }

    /**
     * A parsed line.
     *
     * @param seq  its sequence number
     * @param body the MAC'd part, as bytes
     * @param mac  the MAC it states
     */
    record Parsed(long seq, byte[] body, byte[] mac) {
    }

    /** @return the line's parts, or null if it is not a line of this format */
    static Parsed parse(String line) {
        if (line.length() > MAX_LINE_BYTES) {
            return null;
        }
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return null;
        }
        return new Parsed(Long.parseLong(m.group(2)), m.group(1).getBytes(StandardCharsets.UTF_8),
                HEX.parseHex(m.group(3)));
    }

    /** @return the MAC of {@code body} chained to {@code previous} */
    byte[] mac(byte[] previous, byte[] body) {
        return key.begin().update(previous).update(body).finish();
    }

    /** @return true if {@code p} states the MAC its body has after {@code previous} (constant time) */
    boolean matches(byte[] previous, Parsed p) {
        return MessageDigest.isEqual(mac(previous, p.body()), p.mac());
    }

    /** @return the line's body: every field but the MAC, without the closing brace */
    static String body(long seq, Instant time, AuditEvent e, long suppressed) {
        StringBuilder sb = new StringBuilder(256).append("{\"seq\":").append(seq);
        str(sb, "time", time.toString());
        str(sb, "kind", e.kind().wire());
        str(sb, "route", e.route());
        if (e.instanceId() != null) {
            str(sb, "instanceId", e.instanceId());
        }
        str(sb, "outcome", e.outcome());
        if (e.status() != 0) {
            sb.append(",\"status\":").append(e.status());
        }
        if (e.revisionBefore() >= 0) {
            sb.append(",\"revisionBefore\":").append(e.revisionBefore());
        }
        if (e.revisionAfter() >= 0) {
            sb.append(",\"revisionAfter\":").append(e.revisionAfter());
        }
        if (e.planDigest() != null) {
            str(sb, "planDigest", e.planDigest());
        }
        if (e.durationMillis() >= 0) {
            sb.append(",\"durationMs\":").append(e.durationMillis());
        }
        if (e.peer() != null) {
            str(sb, "peer", e.peer());
        }
        if (!e.rules().isEmpty()) {
            sb.append(",\"rules\":[");
            for (int i = 0; i < e.rules().size(); i++) {
                sb.append(i == 0 ? "" : ",");
                quote(sb, e.rules().get(i));
            }
            sb.append(']');
        }
        if (suppressed > 0) {
            sb.append(",\"suppressedBefore\":").append(suppressed);
        }
        return sb.toString();
    }

    /** @return the complete line, newline included */
    static byte[] line(String body, byte[] mac) {
        return (body + MAC_FIELD + HEX.formatHex(mac) + "\"}\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void str(StringBuilder sb, String name, String value) {
        sb.append(",\"").append(name).append("\":");
        quote(sb, value);
    }

    /** JSON string escaping; the event's syntax checks already keep every value printable ASCII. */
    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
