package io.dogama.agent.e2e;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** JSON in and out for the tests: plain maps, lists, strings, numbers and booleans. */
final class Json {
    private static final JSON STD = JSON.std.with(JSON.Feature.USE_BIG_DECIMAL_FOR_FLOATS);

    private Json() {
    }

    static Map<String, Object> parse(String text) {
        try {
            return STD.mapFrom(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON object: " + abbreviate(text), e);
        }
    }

    static Map<String, Object> parse(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    static List<Object> parseArray(String text) {
        try {
            return STD.listFrom(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON array: " + abbreviate(text), e);
        }
    }

    static String write(Object value) {
        try {
            return STD.asString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        if (!(value instanceof Map<?, ?>)) {
            throw new AssertionError("expected a JSON object, got " + value);
        }
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> array(Object value) {
        if (!(value instanceof List<?>)) {
            throw new AssertionError("expected a JSON array, got " + value);
        }
        return (List<Object>) value;
    }

    static long number(Object value) {
        if (!(value instanceof Number n)) {
            throw new AssertionError("expected a JSON number, got " + value);
        }
        return n.longValue();
    }

    static String abbreviate(String s) {
        return s.length() <= 400 ? s : s.substring(0, 400) + "...";
    }
}
