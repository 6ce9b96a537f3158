package io.dogama.agent.policy.internal;

import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.Rules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Closed-schema access to one JSON object: every getter records a violation (with the field's path)
 * and returns {@code null} when the field is missing, null, mistyped or oversize; unknown fields are
 * reported when the reader is made. Callers build their value only when no violation was recorded.
 */
final class Fields {
    /** Whether a field must be present, and whether {@code null} is a value for it. */
    enum Presence {
        /** Must be present, not null. */
        REQUIRED,
        /** May be omitted; never null. */
        OPTIONAL
    }

    private final Map<String, Json> fields;
    private final String path;
    private final List<Violation> out;

    private Fields(Json.Obj obj, String path, List<Violation> out) {
        this.fields = obj.fields();
        this.path = path;
        this.out = out;
    }

    /**
     * @param value a value expected to be an object
     * @param path  its path
     * @param out   violation sink
     * @param known the field names the schema allows
     * @return a reader, or null (violation recorded) if the value is not an object
     */
    static Fields of(Json value, String path, List<Violation> out, Set<String> known) {
        if (!(value instanceof Json.Obj obj)) {
            out.add(new Violation(path, value instanceof Json.Null ? Rules.NULL_VALUE : Rules.WRONG_TYPE));
            return null;
        }
        for (String key : obj.fields().keySet()) {
            if (!known.contains(key)) {
                out.add(new Violation(Json.Paths.child(path, key), Rules.UNKNOWN_FIELD));
            }
        }
        return new Fields(obj, path, out);
    }

    /** @return this object's path */
    String path() {
        return path;
    }

    /**
     * @param key field name
     * @return its path
     */
    String pathOf(String key) {
        return Json.Paths.child(path, key);
    }

    /**
     * @param key field name
     * @return true if the field is present (even as null)
     */
    boolean has(String key) {
        return fields.containsKey(key);
    }

    /**
     * @param key field name
     * @return true if the field is present with the value {@code null}
     */
    boolean isNull(String key) {
        return fields.get(key) instanceof Json.Null;
    }

    private Json get(String key, Presence presence) {
        Json v = fields.get(key);
        if (v == null) {
            if (presence == Presence.REQUIRED) {
                out.add(new Violation(pathOf(key), Rules.MISSING_FIELD));
            }
            return null;
        }
        if (v instanceof Json.Null) {
            out.add(new Violation(pathOf(key), Rules.NULL_VALUE));
            return null;
        }
        return v;
    }

    String string(String key, Presence presence, int maxLength) {
        Json v = get(key, presence);
        return v == null ? null : string(v, pathOf(key), maxLength, out);
    }

    Long integer(String key, Presence presence) {
        Json v = get(key, presence);
        return v == null ? null : integer(v, pathOf(key), out);
    }

    Boolean bool(String key, Presence presence) {
        Json v = get(key, presence);
        if (v == null) {
            return null;
        }
        if (v instanceof Json.Bool b) {
            return b.value();
        }
        out.add(new Violation(pathOf(key), Rules.WRONG_TYPE));
        return null;
    }

    /** @return the list, or null when absent or on any problem (all recorded) */
    List<String> strings(String key, Presence presence, int maxItems, int maxLength) {
        Json v = get(key, presence);
        return v == null ? null : strings(v, pathOf(key), maxItems, maxLength, out);
    }

    /** @return the map in document order, or null when absent or on any problem (all recorded) */
    Map<String, String> stringMap(String key, Presence presence, int maxEntries, int maxLength) {
        Json v = get(key, presence);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Json.Obj obj)) {
            out.add(new Violation(pathOf(key), Rules.WRONG_TYPE));
            return null;
        }
        if (obj.fields().size() > maxEntries) {
            out.add(new Violation(pathOf(key), Rules.TOO_LARGE));
            return null;
        }
        int before = out.size();
        Map<String, String> m = new LinkedHashMap<>();
        obj.fields().forEach((k, item) -> {
            String p = Json.Paths.child(pathOf(key), k);
            if (k.length() > maxLength) {
                out.add(new Violation(p, Rules.TOO_LARGE));
            }
            String s = item instanceof Json.Null ? nullValue(p) : string(item, p, maxLength, out);
            if (s != null) {
                m.put(k, s);
            }
        });
        return out.size() == before ? m : null;
    }

    private String nullValue(String p) {
        out.add(new Violation(p, Rules.NULL_VALUE));
        return null;
    }

    /** @return a reader for a nested object, or null */
    Fields object(String key, Presence presence, Set<String> known) {
        Json v = get(key, presence);
        return v == null ? null : of(v, pathOf(key), out, known);
    }

    /** @return readers for each element that is an object (others recorded), or null if not an array */
    List<Fields> objects(String key, Presence presence, int maxItems, Set<String> known) {
        Json v = get(key, presence);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Json.Arr arr)) {
            out.add(new Violation(pathOf(key), Rules.WRONG_TYPE));
            return null;
        }
        if (arr.items().size() > maxItems) {
            out.add(new Violation(pathOf(key), Rules.TOO_LARGE));
            return null;
        }
        List<Fields> list = new ArrayList<>();
        for (int i = 0; i < arr.items().size(); i++) {
            Fields f = of(arr.items().get(i), Json.Paths.index(pathOf(key), i), out, known);
            if (f != null) {
                list.add(f);
            }
        }
        return list;
    }

    /** @return readers by key, for an object whose values are objects, or null */
    Map<String, Fields> objectMap(String key, Presence presence, int maxEntries, int maxKeyLength, Set<String> known) {
        Json v = get(key, presence);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Json.Obj obj)) {
            out.add(new Violation(pathOf(key), Rules.WRONG_TYPE));
            return null;
        }
        if (obj.fields().size() > maxEntries) {
            out.add(new Violation(pathOf(key), Rules.TOO_LARGE));
            return null;
        }
        Map<String, Fields> m = new LinkedHashMap<>();
        obj.fields().forEach((k, item) -> {
            String p = Json.Paths.child(pathOf(key), k);
            if (k.length() > maxKeyLength) {
                out.add(new Violation(p, Rules.TOO_LARGE));
            }
            Fields f = of(item, p, out, known);
            if (f != null) {
                m.put(k, f);
            }
        });
        return m;
    }

    static String string(Json v, String path, int maxLength, List<Violation> out) {
        if (!(v instanceof Json.Str s)) {
            out.add(new Violation(path, v instanceof Json.Null ? Rules.NULL_VALUE : Rules.WRONG_TYPE));
            return null;
        }
        if (!s.valid()) {
            out.add(new Violation(path, Rules.INVALID_STRING));
            return null;
        }
        if (s.value().length() > maxLength) {
            out.add(new Violation(path, Rules.TOO_LARGE));
            return null;
        }
        return s.value();
    }

    static Long integer(Json v, String path, List<Violation> out) {
        return switch (v) {
            case Json.Int i -> i.value();
            case Json.BigInt b -> {
                out.add(new Violation(path, Rules.OUT_OF_RANGE));
                yield null;
            }
            case Json.Null n -> {
                out.add(new Violation(path, Rules.NULL_VALUE));
                yield null;
            }
            default -> {
                out.add(new Violation(path, Rules.WRONG_TYPE));
                yield null;
            }
        };
    }

    static List<String> strings(Json v, String path, int maxItems, int maxLength, List<Violation> out) {
        if (!(v instanceof Json.Arr arr)) {
            out.add(new Violation(path, v instanceof Json.Null ? Rules.NULL_VALUE : Rules.WRONG_TYPE));
            return null;
        }
        if (arr.items().size() > maxItems) {
            out.add(new Violation(path, Rules.TOO_LARGE));
            return null;
        }
        int before = out.size();
        List<String> list = new ArrayList<>();
        for (int i = 0; i < arr.items().size(); i++) {
            String s = string(arr.items().get(i), Json.Paths.index(path, i), maxLength, out);
            if (s != null) {
                list.add(s);
            }
        }
        return out.size() == before ? list : null;
    }

    /** @return the value present under {@code key}, for callers that handle a nullable field themselves */
    Optional<Json> raw(String key) {
        return Optional.ofNullable(fields.get(key));
    }
}
