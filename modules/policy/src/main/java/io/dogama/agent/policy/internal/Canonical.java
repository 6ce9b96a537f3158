package io.dogama.agent.policy.internal;

import io.dogama.agent.core.Plan;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * RFC 8785 (JSON Canonicalization Scheme) for the value shapes a plan has: objects with string
 * keys, arrays, strings, booleans and integers within +/-(2^53-1) (for those, the ECMAScript number
 * form is the plain decimal). Object members are sorted by their keys' UTF-16 code units, which is
 * exactly {@link String#compareTo}.
 */
public final class Canonical {
    private static final HexFormat HEX = HexFormat.of();

    private Canonical() {
    }

    /**
     * @param plan a plan
     * @return its canonical UTF-8 bytes without {@code planDigest}; absent optionals are omitted
     */
    public static byte[] plan(Plan plan) {
        Map<String, Object> m = new TreeMap<>();
        m.put("instanceId", plan.instanceId());
        m.put("templateId", plan.templateId());
        m.put("templateVersion", plan.templateVersion());
        m.put("image", plan.image());
        plan.command().ifPresent(c -> m.put("command", c));
        plan.entrypoint().ifPresent(e -> m.put("entrypoint", e));
        m.put("capAdd", plan.capAdd());
        m.put("env", plan.env());
        List<Object> mounts = new ArrayList<>();
        for (Plan.Mount x : plan.mounts()) {
            mounts.add(Map.of("source", x.source(), "target", x.target(), "readOnly", x.readOnly()));
        }
        m.put("mounts", mounts);
        List<Object> ports = new ArrayList<>();
        for (Plan.Port p : plan.ports()) {
            ports.add(Map.of("name", p.name(), "containerPort", p.containerPort(), "protocol", p.protocol(),
                    "hostIp", p.hostIp(), "hostPort", p.hostPort()));
        }
        m.put("ports", ports);
        Plan.Resources r = plan.resources();
        m.put("resources", Map.of("memoryBytes", r.memoryBytes(), "nanoCpus", r.nanoCpus(), "pidsLimit",
                r.pidsLimit()));
        plan.user().ifPresent(u -> m.put("user", u));
        m.put("labels", plan.labels());
        m.put("networks", plan.networks());
        StringBuilder sb = new StringBuilder(1024);
        write(m, sb);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param bytes canonical bytes
     * @return {@code sha256:<hex>}
     */
    public static String digest(byte[] bytes) {
        return "sha256:" + HEX.formatHex(sha256(bytes));
    }

    /**
     * @param bytes input
     * @return its SHA-256
     */
    public static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform must provide SHA-256 (MessageDigest's contract).
            throw new IllegalStateException("policy: SHA-256 unavailable", e);
        }
    }

    /**
     * @param value a Map with String keys, a List, a String, a Boolean, or an Integer/Long within range
     * @return its canonical UTF-8 bytes
     */
    public static byte[] json(Object value) {
        StringBuilder sb = new StringBuilder(256);
        write(value, sb);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes one value of the supported shapes.
     *
     * @param v  a Map with String keys, a List, a String, a Boolean, or an Integer/Long within range
     * @param sb target
     */
    static void write(Object v, StringBuilder sb) {
        switch (v) {
            case Map<?, ?> map -> {
                TreeMap<String, Object> sorted = new TreeMap<>();
                map.forEach((k, x) -> sorted.put((String) k, x));
                sb.append('{');
                boolean first = true;
                for (Map.Entry<String, Object> e : sorted.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    string(e.getKey(), sb);
                    sb.append(':');
                    write(e.getValue(), sb);
                }
                sb.append('}');
            }
            case List<?> list -> {
                sb.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(list.get(i), sb);
                }
                sb.append(']');
            }
            case String s -> string(s, sb);
            case Boolean b -> sb.append(b.booleanValue());
            case Long l -> integer(l, sb);
            case Integer i -> integer(i, sb);
            case null -> sb.append("null");
            default -> throw new IllegalArgumentException("policy: no canonical form for " + v.getClass());
        }
    }

    private static void integer(long l, StringBuilder sb) {
        if (l < -Json.MAX_SAFE_INTEGER || l > Json.MAX_SAFE_INTEGER) {
            throw new IllegalArgumentException("policy: integer outside the exact JCS range");
        }
        sb.append(l);
    }

    /** RFC 8785 section 3.2.2.2: only {@code "}, {@code \} and controls are escaped; lower-case hex. */
    static void string(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (Character.isSurrogate(c)) {
                        // I-JSON: an unpaired surrogate has no UTF-8 form; the parser never produces one.
                        if (!Character.isHighSurrogate(c) || i + 1 >= s.length()
                                || !Character.isLowSurrogate(s.charAt(i + 1))) {
                            throw new IllegalArgumentException("policy: unpaired surrogate has no canonical form");
                        }
                        sb.append(c).append(s.charAt(++i));
                    } else if (c < 0x20) {
                        sb.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
