package io.dogama.agent.http.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Utf8;
import io.dogama.agent.core.Violation;
import io.dogama.agent.lifecycle.DiskUsage;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.lifecycle.PortAvailability;
import io.dogama.agent.lifecycle.Stats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON in and out, with jackson-jr: strict reading, and the response shapes of SPEC sections 2 and 4. */
final class Json {
    /** Deepest nesting accepted in a request body; the closed schemas here need 3. */
    static final int MAX_NESTING = 16;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
            .build();
    private static final JSON READER = JSON.builder(FACTORY).enable(JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS)
            .build();
    private static final JSON WRITER = JSON.std;

    private Json() {
    }

    /** The body is not one well-formed JSON value without duplicate keys. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed() {
            super("http: malformed JSON body", null, false, false);
        }
    }

    /**
     * @param body request body, UTF-8 (SPEC section 6)
     * @return maps, lists, strings, numbers, booleans and nulls
     * @throws Malformed if it is not UTF-8, not exactly one JSON value, has a duplicate key, or holds a string
     *                   with an unpaired surrogate (an escape such as {@code \ud800}, which names no character)
     */
    static Object read(byte[] body) throws Malformed {
        char[] text;
        try {
            // Decoded strictly here, as the plan parser does: given bytes, jackson would detect UTF-16 or UTF-32
            // (and a byte order mark) on its own, and two parsers would disagree on what a body means.
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body));
            text = new char[chars.remaining()];
            chars.get(text);
        } catch (CharacterCodingException e) {
            throw new Malformed();
        }
        try (JsonParser parser = FACTORY.createParser(text)) {
            if (parser.nextToken() == null) {
                throw new Malformed();
            }
            Object value = READER.anyFrom(parser);
            if (parser.nextToken() != null) {
                throw new Malformed(); // trailing content after the value
            }
            if (!wellFormed(value)) {
                throw new Malformed();
            }
            return value;
        } catch (IOException e) {
            throw new Malformed();
        }
    }

    /** @return false if a key or a string anywhere in the value cannot be written as UTF-8 (an unpaired surrogate) */
    private static boolean wellFormed(Object value) {
        return switch (value) {
            case String s -> Utf8.wellFormed(s);
            case Map<?, ?> m -> m.entrySet().stream().allMatch(e -> wellFormed(e.getKey()) && wellFormed(e.getValue()));
            case List<?> l -> l.stream().allMatch(Json::wellFormed);
            case null, default -> true;
        };
    }

    static byte[] write(Object value) {
        try {
            return WRITER.asBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("http: cannot serialise a response", e);
        }
    }

    static Map<String, Object> problem(ProblemCode code, List<Violation> violations) {
        return code.document(violations);
    }

    static Map<String, Object> summary(InstanceSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("instanceId", s.instanceId());
        m.put("templateId", s.templateId());
        m.put("templateVersion", s.templateVersion());
        m.put("planDigest", s.planDigest());
        m.put("revision", s.revision());
        m.put("state", s.state().name());
        return m;
    }

    static Map<String, Object> instance(InstanceView v) {
        Map<String, Object> m = summary(v.summary());
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("status", v.container().status());
        v.container().startedAt().ifPresent(t -> c.put("startedAt", t));
        v.container().exitCode().ifPresent(x -> c.put("exitCode", x));
        m.put("container", c);
        return m;
    }

    static Map<String, Object> instances(List<InstanceSummary> list) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (InstanceSummary s : list) {
            out.add(summary(s));
        }
        return Map.of("instances", out);
    }

    static Map<String, Object> disk(List<DiskUsage> list) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (DiskUsage d : list) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", d.path());
            m.put("totalBytes", d.totalBytes());
            m.put("usableBytes", d.usableBytes());
            out.add(m);
        }
        return Map.of("paths", out);
    }

    static Map<String, Object> ports(List<PortAvailability> list) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (PortAvailability p : list) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("hostIp", p.binding().hostIp());
            m.put("hostPort", p.binding().hostPort());
            m.put("protocol", p.binding().protocol().wire());
            m.put("available", p.available());
            out.add(m);
        }
        return Map.of("bindings", out);
    }

    /** @return the stats object, or null if a value cannot be written as JSON (a non-finite CPU figure) */
    static Map<String, Object> stats(Stats s) {
        if (!Double.isFinite(s.cpuPercent())) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpuPercent", s.cpuPercent());
        m.put("memoryBytes", s.memoryBytes());
        m.put("memoryLimitBytes", s.memoryLimitBytes());
        m.put("pids", s.pids());
        m.put("networkRxBytes", s.networkRxBytes());
        m.put("networkTxBytes", s.networkTxBytes());
        m.put("blockReadBytes", s.blockReadBytes());
        m.put("blockWriteBytes", s.blockWriteBytes());
        return m;
    }
}
