package io.dogama.agent.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Case-insensitive headers for tests; one list element per header line. */
final class MapHeaders implements RequestHeaders {
    private final Map<String, List<String>> values = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

    MapHeaders add(String name, String value) {
        values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        return this;
    }

    MapHeaders remove(String name) {
        values.remove(name);
        return this;
    }

    MapHeaders replace(String name, String value) {
        values.put(name, new ArrayList<>(List.of(value)));
        return this;
    }

    static MapHeaders signed(String authorization, String timestamp, String nonce) {
        return new MapHeaders().add(Authenticator.AUTHORIZATION_HEADER, authorization)
                .add(Authenticator.TIMESTAMP_HEADER.toLowerCase(Locale.ROOT), timestamp)
                .add(Authenticator.NONCE_HEADER.toUpperCase(Locale.ROOT), nonce);
    }

    @Override
    public List<String> all(String name) {
        return List.copyOf(values.getOrDefault(name, List.of()));
    }
}
