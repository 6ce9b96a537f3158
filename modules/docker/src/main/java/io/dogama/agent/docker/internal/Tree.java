package io.dogama.agent.docker.internal;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.docker.DockerProtocolException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Typed, checked access to a JSON object the engine sent. A missing key and a JSON {@code null}
 * mean "unset" (the engine writes {@code null} for empty lists); a value of the wrong type is a
 * {@link DockerProtocolException}. Parse errors are reported without the parser's message, which
 * could quote engine text.
 */
final class Tree {
    private static final System.Logger LOG = System.getLogger(Tree.class.getName());
    private static final JSON JSON_READER = JSON.std;

    private final Map<?, ?> map;

    private Tree(Map<?, ?> map) {
        this.map = map;
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
