package io.dogama.agent.e2e;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * RFC 8785 (JSON Canonicalization Scheme) for what a plan can hold: objects, arrays, strings,
 * integers and booleans. Object keys sort by UTF-16 code units, which is {@link String#compareTo}.
 * Used to compute the plan digest independently of the agent (SPEC section 6).
 */
final class Jcs {
    private Jcs() {
    }

    static String canonical(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    /** @return {@code sha256:<hex>} of the canonical form of the plan without {@code planDigest} */
    static String planDigest(Map<String, Object> plan) {
        Map<String, Object> copy = new TreeMap<>(plan);
        copy.remove("planDigest");
        return "sha256:" + sha256Hex(canonical(copy).getBytes(StandardCharsets.UTF_8));
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 missing from the JDK", e);
        }
    }

    private static void write(Object value, StringBuilder out) {
        switch (value) {
            case null -> out.append("null");
            case Boolean b -> out.append(b);
            case Integer i -> out.append(i);
            case Long l -> out.append(l);
            case java.math.BigInteger b -> out.append(b);
            case String s -> string(s, out);
            case Map<?, ?> m -> {
                TreeMap<String, Object> sorted = new TreeMap<>();
                m.forEach((k, v) -> sorted.put((String) k, v));
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, Object> e : sorted.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    string(e.getKey(), out);
                    out.append(':');
                    write(e.getValue(), out);
                }
                out.append('}');
            }
            case List<?> l -> {
                out.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(l.get(i), out);
                }
                out.append(']');
            }
            default -> throw new IllegalArgumentException("e2e: no canonical form for " + value.getClass());
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
