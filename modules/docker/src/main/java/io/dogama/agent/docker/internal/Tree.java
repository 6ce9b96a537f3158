package io.dogama.agent.docker.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Typed, checked access to a JSON object the engine sent. A missing key and a JSON {@code null}
 * mean "unset" (the engine writes {@code null} for empty lists); a value of the wrong type is a
 * {@link DockerProtocolException}. Parse errors are reported without the parser's message, which
 * could quote engine text.
 */
final class Tree {
    private static final System.Logger LOG = System.getLogger(Tree.class.getName());
    private static final JSON JSON_READER = JSON.std;

    /** Per value: no string in an answer is longer than a label value, no object deeper than a few levels. */
    static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxStringLength(1024 * 1024).maxNestingDepth(64).maxNumberLength(32).maxNameLength(64 * 1024).build();
    /**
     * The parser of answers read as they arrive. Field names are not kept: jackson's table of names would otherwise
     * hold every distinct name of an answer, and carry them into the next one.
     */
    static final JsonFactory FACTORY = JsonFactory.builder().streamReadConstraints(CONSTRAINTS)
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .build();
    /**
     * Most an object answer read by {@link #read} may keep, in units: a character of each kept name and string, and
     * {@value #VALUE_UNITS} for each kept value; about 1 MiB of heap. A listing ({@link #readArray}) is given its own
     * budget, for a few hundred units of each of up to tens of thousands of containers.
     */
    static final long MAX_KEPT_UNITS = 256 * 1024;
    /**
     * Most a listing of containers by label may keep: about 600 units each, 10,000 instances (the largest instance
     * limit) and their prior containers during replaces; about 32 MiB of heap at most, once, at the start's report.
     */
    static final long MAX_LISTING_KEPT_UNITS = 8L << 20;
    /** The units a kept value costs besides its characters (its object, its entry in a map or list). */
    static final int VALUE_UNITS = 16;

    private final Map<?, ?> map;

    private Tree(Map<?, ?> map) {
        this.map = map;
    }

    /**
     * Reads a JSON object as it arrives, keeping only {@code shape}'s part of it ({@link Shape} says why).
     *
     * @param body     the answer's body
     * @param maxBytes most bytes it may have
     * @param shape    what to keep
     * @return the kept part
     * @throws DockerException {@link DockerProtocolException} if the body is larger than {@code maxBytes}, keeps
     *                         more than {@link #MAX_KEPT_UNITS}, is not a JSON object, or names a kept member twice;
     *                         the body's own failures
     */
    static Tree read(BodyReader body, long maxBytes, Shape shape) throws DockerException {
        if (!(readAny(body, maxBytes, shape, MAX_KEPT_UNITS) instanceof Map<?, ?> m)) {
            throw new DockerProtocolException("the engine did not answer with a JSON object");
        }
        return new Tree(m);
    }

    /**
     * As {@link #read}, for an array of objects.
     *
     * @param each     what to keep of each element
     * @param maxKept  most units the array may keep
     */
    static List<Tree> readArray(BodyReader body, long maxBytes, Shape each, long maxKept) throws DockerException {
        if (!(readAny(body, maxBytes, Shape.elements(each), maxKept) instanceof List<?> l)) {
            throw new DockerProtocolException("the engine did not answer with a JSON array");
        }
        return objects(l);
    }

    private static Object readAny(BodyReader body, long maxBytes, Shape shape, long maxKept) throws DockerException {
        String overLimit = "the engine's answer exceeds its limit";
        if (body.declaredLength() > maxBytes) {
            throw new DockerProtocolException(overLimit);
        }
        try (JsonParser p = FACTORY.createParser(new BoundedBody(body, maxBytes, overLimit))) {
            JsonToken first = p.nextToken();
            Object o = first == null ? null : new Keeper(p, maxKept).value(first, shape);
            if (o == null) {
                throw new DockerProtocolException("the engine answered with an empty body");
            }
            if (p.nextToken() != null) {
                throw new DockerProtocolException("the engine answered with malformed JSON");
            }
            return o;
        } catch (BoundedBody.Failed e) {
            throw e.cause;
        } catch (IOException | RuntimeException e) {
            // A RuntimeException too: the parser's own failures on hostile input must stay a protocol error. Its
            // message may quote the engine's bytes: keep only the type, at debug.
            LOG.log(Level.DEBUG, "docker: unparseable JSON from the engine ({0})", e.getClass().getSimpleName());
            throw new DockerProtocolException("the engine answered with malformed JSON");
        }
    }

    /** Builds the kept part of one answer, as jackson-jr would have built the whole: maps, lists, strings, numbers. */
    private static final class Keeper {
        private final JsonParser p;
        private long left;

        Keeper(JsonParser p, long maxKept) {
            this.p = p;
            this.left = maxKept;
        }

        /** @return the value whose first token is {@code t}, read to its end */
        Object value(JsonToken t, Shape shape) throws IOException, DockerException {
            return switch (t) {
                case START_OBJECT -> switch (shape) {
                    case Shape.Fields f -> object(f.fields()::get);
                    case Shape.Members m -> object(name -> m.names().contains(name) ? Shape.WHOLE : null);
                    case Shape.Whole w -> object(name -> Shape.WHOLE);
                    case Shape.Elements e -> object(name -> Shape.WHOLE);
                };
                case START_ARRAY -> {
                    Shape each = shape instanceof Shape.Elements e ? e.each() : Shape.WHOLE;
                    List<Object> l = new ArrayList<>();
                    JsonToken x;
                    while ((x = p.nextToken()) != JsonToken.END_ARRAY) {
                        spend(VALUE_UNITS);
                        l.add(value(x, each));
                    }
                    yield l;
                }
                case VALUE_STRING -> {
                    String s = p.getText();
                    spend(s.length());
                    yield s;
                }
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getNumberValue();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                case VALUE_NULL -> null;
                default -> throw new DockerProtocolException("the engine answered with malformed JSON");
            };
        }

        /** An object, its start token read: the members {@code keep} gives a shape, the others skipped unbuilt. */
        private Map<String, Object> object(Function<String, Shape> keep) throws IOException, DockerException {
            Map<String, Object> m = new LinkedHashMap<>();
            while (p.nextToken() != JsonToken.END_OBJECT) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                Shape s = keep.apply(name);
                if (s == null) {
                    p.skipChildren();
                    continue;
                }
                if (m.containsKey(name)) {
                    // Not named in the message: a member kept whole may have any name the engine was given.
                    throw new DockerProtocolException("a JSON object names a kept member twice");
                }
                spend(name.length() + VALUE_UNITS);
                m.put(name, value(v, s));
            }
            return m;
        }

        private void spend(long units) throws DockerProtocolException {
            left -= units;
            if (left < 0) {
                throw new DockerProtocolException("the engine's answer holds more than the agent keeps");
            }
        }
    }

    static Tree parse(byte[] body) throws DockerProtocolException {
        Object o = parseAny(body);
        if (!(o instanceof Map<?, ?> m)) {
            throw new DockerProtocolException("the engine did not answer with a JSON object");
        }
        return new Tree(m);
    }

    static List<Tree> parseArray(byte[] body) throws DockerProtocolException {
        Object o = parseAny(body);
        if (!(o instanceof List<?> l)) {
            throw new DockerProtocolException("the engine did not answer with a JSON array");
        }
        return objects(l);
    }

    private static Object parseAny(byte[] body) throws DockerProtocolException {
        try {
            Object o = JSON_READER.anyFrom(body);
            if (o == null) {
                throw new DockerProtocolException("the engine answered with an empty body");
            }
            return o;
        } catch (IOException | RuntimeException e) {
            // The parser's message may quote the engine's bytes: keep only the type, at debug.
            LOG.log(Level.DEBUG, "docker: unparseable JSON from the engine ({0})", e.getClass().getSimpleName());
            throw new DockerProtocolException("the engine answered with malformed JSON");
        }
    }

    private static List<Tree> objects(List<?> l) throws DockerProtocolException {
        List<Tree> out = new ArrayList<>(l.size());
        for (Object e : l) {
            if (!(e instanceof Map<?, ?> m)) {
                throw new DockerProtocolException("a JSON array holds a non-object");
            }
            out.add(new Tree(m));
        }
        return out;
    }

    private static DockerProtocolException wrongType(String key) {
        return new DockerProtocolException("unexpected JSON type for " + key);
    }

    boolean has(String key) {
        return map.get(key) != null;
    }

    String str(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (!(v instanceof String s)) {
            throw v == null ? new DockerProtocolException("missing JSON field " + key) : wrongType(key);
        }
        return s;
    }

    String str(String key, String unset) throws DockerProtocolException {
        return has(key) ? str(key) : unset;
    }

    boolean bool(String key, boolean unset) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return unset;
        }
        if (!(v instanceof Boolean b)) {
            throw wrongType(key);
        }
        return b;
    }

    /** An integer; a value beyond a long (the engine's uint64 "unlimited") is clamped to MAX_VALUE. */
    long num(String key, long unset) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return unset;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b) {
            return b.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        throw wrongType(key);
    }

    Tree obj(String key) throws DockerProtocolException {
        return opt(key).orElseThrow(() -> new DockerProtocolException("missing JSON object " + key));
    }

    Optional<Tree> opt(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return Optional.empty();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw wrongType(key);
        }
        return Optional.of(new Tree(m));
    }

    /** An object, or an empty one if unset. */
    Tree objOrEmpty(String key) throws DockerProtocolException {
        return opt(key).orElseGet(() -> new Tree(Map.of()));
    }

    List<String> strings(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l)) {
            throw wrongType(key);
        }
        List<String> out = new ArrayList<>(l.size());
        for (Object e : l) {
            if (!(e instanceof String s)) {
                throw wrongType(key);
            }
            out.add(s);
        }
        return out;
    }

    List<Tree> objects(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l)) {
            throw wrongType(key);
        }
        return objects(l);
    }

    /** @return the array's length, or 0 if unset */
    int length(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return 0;
        }
        if (!(v instanceof List<?> l)) {
            throw wrongType(key);
        }
        return l.size();
    }

    Map<String, String> stringMap(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw wrongType(key);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k) || !(e.getValue() instanceof String s)) {
                throw wrongType(key);
            }
            out.put(k, s);
        }
        return out;
    }

    /** The object's members that are objects themselves, by key; an unset object is empty. */
    Map<String, Tree> objectMap(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw wrongType(key);
        }
        Map<String, Tree> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k)) {
                throw wrongType(key);
            }
            if (e.getValue() == null) {
                out.put(k, new Tree(Map.of()));
            } else if (e.getValue() instanceof Map<?, ?> inner) {
                out.put(k, new Tree(inner));
            } else {
                throw wrongType(key);
            }
        }
        return out;
    }

    /** Members whose values are arrays of objects (or null), e.g. PortBindings. */
    Map<String, List<Tree>> objectListMap(String key) throws DockerProtocolException {
        Object v = map.get(key);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw wrongType(key);
        }
        Map<String, List<Tree>> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k)) {
                throw wrongType(key);
            }
            if (e.getValue() == null) {
                out.put(k, List.of());
            } else if (e.getValue() instanceof List<?> l) {
                out.put(k, objects(l));
            } else {
                throw wrongType(key);
            }
        }
        return out;
    }
}
