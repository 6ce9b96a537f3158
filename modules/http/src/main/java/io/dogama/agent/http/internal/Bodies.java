package io.dogama.agent.http.internal;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.IpLiteral;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Protocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The closed request schemas of the small routes. An unknown field, a missing required one, a
 * wrong type, a {@code null}, a duplicate key or a value out of range is {@code malformed_request}.
 * Plan bodies are not parsed here: they go to the lifecycle as received.
 */
final class Bodies {
    /** Stop and restart timeout when the body is empty or omits it, SPEC section 2. */
    static final int DEFAULT_TIMEOUT_SECONDS = 30;
    /** Largest stop and restart timeout. */
    static final int MAX_TIMEOUT_SECONDS = 300;
    /** check-disk accepts 1 to 16 paths. */
    static final int MAX_DISK_PATHS = 16;
    /** check-ports accepts 1 to 64 bindings. */
    static final int MAX_PORT_BINDINGS = 64;

    private Bodies() {
    }

    /**
     * @param body empty, or {@code {"timeoutSeconds":n}} with n 0..300, or {@code {}}
     * @return the timeout
     */
    static Outcome<Integer> timeout(byte[] body) {
        if (body.length == 0) {
            return Outcome.ok(DEFAULT_TIMEOUT_SECONDS);
        }
        Optional<Map<String, Object>> object = object(body, Set.of("timeoutSeconds"), Set.of());
        if (object.isEmpty()) {
            return malformed();
        }
        Object value = object.get().get("timeoutSeconds");
        if (value == null) {
            return Outcome.ok(DEFAULT_TIMEOUT_SECONDS);
        }
        Integer n = intIn(value, 0, MAX_TIMEOUT_SECONDS);
        return n == null ? malformed() : Outcome.ok(n);
    }

    /**
     * @param body {@code {"paths":[...]}} with 1 to 16 strings
     * @return the paths as sent
     */
    static Outcome<List<String>> diskPaths(byte[] body) {
        Optional<Map<String, Object>> object = object(body, Set.of("paths"), Set.of("paths"));
        if (object.isEmpty() || !(object.get().get("paths") instanceof List<?> list)
                || list.isEmpty() || list.size() > MAX_DISK_PATHS) {
            return malformed();
        }
        List<String> paths = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof String s)) {
                return malformed();
            }
            paths.add(s);
        }
        return Outcome.ok(List.copyOf(paths));
    }

    /**
     * @param body {@code {"bindings":[{"hostIp":ip,"hostPort":n,"protocol":"tcp"|"udp"}]}} with 1 to 64 bindings
     * @return the bindings
     */
    static Outcome<List<HostPort>> portBindings(byte[] body) {
        Optional<Map<String, Object>> object = object(body, Set.of("bindings"), Set.of("bindings"));
        if (object.isEmpty() || !(object.get().get("bindings") instanceof List<?> list)
                || list.isEmpty() || list.size() > MAX_PORT_BINDINGS) {
            return malformed();
        }
        Set<String> fields = Set.of("hostIp", "hostPort", "protocol");
        List<HostPort> bindings = new ArrayList<>();
        for (Object item : list) {
            Optional<Map<String, Object>> binding = asObject(item, fields, fields);
            if (binding.isEmpty()) {
                return malformed();
            }
            Map<String, Object> b = binding.get();
            Integer port = intIn(b.get("hostPort"), 1, 65535);
            Optional<Protocol> protocol = b.get("protocol") instanceof String s ? Protocol.parse(s) : Optional.empty();
            if (!(b.get("hostIp") instanceof String ip) || !IpLiteral.isCanonical(ip) || port == null || protocol.isEmpty()) {
                return malformed();
            }
            bindings.add(new HostPort(ip, port, protocol.get()));
        }
        return Outcome.ok(List.copyOf(bindings));
    }

    private static Optional<Map<String, Object>> object(byte[] body, Set<String> allowed, Set<String> required) {
        try {
            return asObject(Json.read(body), allowed, required);
        } catch (Json.Malformed e) {
            return Optional.empty();
        }
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> asObject(Object value, Set<String> allowed, Set<String> required) {
        if (!(value instanceof Map<?, ?> map)) {
            return Optional.empty();
        }
        if (!allowed.containsAll(map.keySet()) || !map.keySet().containsAll(required)
                || map.containsValue(null)) {
            return Optional.empty();
        }
        return Optional.of((Map<String, Object>) map);
    }

    /** @return the value if it is a JSON integer (no fraction, no exponent) in range, else null */
    private static Integer intIn(Object value, int min, int max) {
        if (value instanceof Integer i && i >= min && i <= max) {
            return i;
        }
        return null;
    }

    private static <T> Outcome<T> malformed() {
        return Outcome.failed(ProblemCode.MALFORMED_REQUEST);
    }
}
