package io.dogama.agent.policy.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.dogama.agent.core.Utf8;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Rules;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON tree built from jackson-core's streaming parser, so that duplicate keys are reported
 * with their path (jackson's strict detection would stop at the first one) and every value keeps
 * enough type information for closed-schema checks.
 */
public sealed interface Json {
    /** Largest integer magnitude accepted: beyond it, RFC 8785's number form is not exact. */
    long MAX_SAFE_INTEGER = (1L << 53) - 1;
    /** Path of the root value. */
    String ROOT = "$";

    /**
     * An object; keys in document order, duplicates dropped (first kept).
     *
     * @param fields the fields
     */
    record Obj(Map<String, Json> fields) implements Json {
        /** Wraps read-only. */
        public Obj {
            fields = Collections.unmodifiableMap(fields);
        }
    }

    /**
     * An array.
     *
     * @param items the items
     */
    record Arr(List<Json> items) implements Json {
        /** Wraps read-only. */
        public Arr {
            items = Collections.unmodifiableList(items);
        }
    }

    /**
     * A string; {@code valid} is false when it holds an unpaired surrogate.
     *
     * @param value the text
     * @param valid whether it is well-formed UTF-16
     */
    record Str(String value, boolean valid) implements Json {
    }

    /**
     * An integer within +/-{@link #MAX_SAFE_INTEGER}.
     *
     * @param value the value
     */
    record Int(long value) implements Json {
    }

    /** An integer beyond +/-{@link #MAX_SAFE_INTEGER}. */
    record BigInt() implements Json {
    }

    /** A number with a fraction or exponent. */
    record Frac() implements Json {
    }

    /**
     * A boolean.
     *
     * @param value the value
     */
    record Bool(boolean value) implements Json {
    }

    /** {@code null}. */
    record Null() implements Json {
    }

    /** Thrown when the bytes are not a single JSON value. Carries no input text. */
    final class Malformed extends PolicyException {
        private static final long serialVersionUID = 1L;

        Malformed(String why) {
            super("malformed JSON: " + why);
        }
    }

    /**
     * Parses one JSON document.
     *
     * @param bytes      UTF-8 bytes
     * @param maxDepth   deepest nesting accepted
     * @param violations receives {@code duplicate_key} and {@code invalid_string} violations
     * @return the root value
     * @throws Malformed on invalid UTF-8, invalid syntax, trailing data or too deep nesting
     */
    static Json parse(byte[] bytes, int maxDepth, List<Violation> violations) throws Malformed {
        CharBuffer chars;
        try {
            // Decode strictly ourselves: jackson would also auto-detect UTF-16/32, which the API does not accept.
            chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw new Malformed("invalid UTF-8");
        }
        char[] text = new char[chars.remaining()];
        chars.get(text);
        try (JsonParser p = Holder.FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new Malformed("empty");
            }
            Json root = value(p, first, ROOT, 1, maxDepth, violations);
            if (p.nextToken() != null) {
                throw new Malformed("trailing data");
            }
            return root;
        } catch (IOException e) {
            // StreamReadException and friends: never echo their text, it quotes the input.
            throw new Malformed("syntax");
        }
    }

    private static Json value(JsonParser p, JsonToken t, String path, int depth, int maxDepth, List<Violation> out)
            throws IOException, Malformed {
        switch (t) {
            case START_OBJECT -> {
                if (depth > maxDepth) {
                    throw new Malformed("too deep");
                }
                Map<String, Json> fields = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String key = p.currentName();
                    String child = Paths.child(path, key);
                    Json v = value(p, p.nextToken(), child, depth + 1, maxDepth, out);
                    if (!Utf8.wellFormed(key)) {
                        out.add(new Violation(child, Rules.INVALID_STRING));
                    }
                    if (fields.containsKey(key)) {
                        out.add(new Violation(child, Rules.DUPLICATE_KEY));
                    } else {
                        fields.put(key, v);
                    }
                }
                return new Obj(fields);
            }
            case START_ARRAY -> {
                if (depth > maxDepth) {
                    throw new Malformed("too deep");
                }
                List<Json> items = new ArrayList<>();
                for (JsonToken i = p.nextToken(); i != JsonToken.END_ARRAY; i = p.nextToken()) {
                    items.add(value(p, i, Paths.index(path, items.size()), depth + 1, maxDepth, out));
                }
                return new Arr(items);
            }
            case VALUE_STRING -> {
                String s = p.getText();
                return new Str(s, Utf8.wellFormed(s));
            }
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    return new BigInt();
                }
                long v = p.getLongValue();
                return v >= -MAX_SAFE_INTEGER && v <= MAX_SAFE_INTEGER ? new Int(v) : new BigInt();
            }
            case VALUE_NUMBER_FLOAT -> {
                return new Frac();
            }
            case VALUE_TRUE -> {
                return new Bool(true);
            }
            case VALUE_FALSE -> {
                return new Bool(false);
            }
            case VALUE_NULL -> {
                return new Null();
            }
            default -> throw new Malformed("unexpected token");
        }
    }

    /** Path syntax for violations: {@code a.b[0].c}; keys that are not plain are not echoed. */
    final class Paths {
        /** Longest key echoed in a path. */
        private static final int MAX_PLAIN = 64;

        private Paths() {
        }

        /**
         * @param parent parent path
         * @param key    object key as sent
         * @return {@code parent.key}, or {@code parent} itself when the key is not plain text
         */
        static String child(String parent, String key) {
            if (!isPlain(key)) {
                return parent;
            }
            return ROOT.equals(parent) ? key : parent + "." + key;
        }

        /**
         * @param parent parent path
         * @param i      index
         * @return {@code parent[i]}
         */
        static String index(String parent, int i) {
            return parent + "[" + i + "]";
        }

        /** {@code [A-Za-z0-9_./-]{1,64}}, without a regex: this runs for every key of every plan. */
        static boolean isPlain(String key) {
            if (key.isEmpty() || key.length() > MAX_PLAIN) {
                return false;
            }
            for (int i = 0; i < key.length(); i++) {
                char c = key.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                        || c == '.' || c == '/' || c == '-';
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The factory, built once. */
    final class Holder {
        static final JsonFactory FACTORY = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(64)
                        .maxStringLength(1 << 20).build())
                .build();

        private Holder() {
        }
    }
}
