package io.dogama.agent.http.internal;

import io.dogama.agent.core.Ids;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The one route table of the agent (SPEC section 2). Paths are matched against the raw request path
 * exactly as received, segment by segment: nothing is decoded or normalised, so a trailing slash,
 * an empty segment ({@code //}), a dot segment, a {@code %}-escape or a matrix parameter never
 * matches. {@code {id}} matches an instance ID of SPEC section 5 and nothing else.
 */
final class RouteTable {
    /** What a route's body may be. */
    enum BodyKind {
        /** The body must be empty. */
        NONE,
        /** An optional JSON body: empty means defaults. */
        OPTIONAL_JSON,
        /** A JSON body is required. */
        JSON
    }

    /** Every operation of SPEC section 2. */
    enum Endpoint {
        HEALTH(false), CHECK_DISK(false), CHECK_PORTS(false), LIST(false), CREATE(true), REPLACE(true), INSPECT(false),
        DELETE(true), STATS(false), START(true), STOP(true), RESTART(true), METRICS(false);

        private final boolean mutating;

        Endpoint(boolean mutating) {
            this.mutating = mutating;
        }

        /** @return true if it changes an instance: audited durably before and after (SPEC section 14) */
        boolean mutating() {
            return mutating;
        }
    }

    /**
     * One row of the table.
     *
     * @param method   upper-case method
     * @param pattern  path with {@code {id}} placeholders
     * @param body     body rule
     * @param endpoint the operation
     * @param segments the pattern split at every {@code /}, made once rather than on every match
     */
    record Route(String method, String pattern, BodyKind body, Endpoint endpoint, List<String> segments) {
        Route(String method, String pattern, BodyKind body, Endpoint endpoint) {
            this(method, pattern, body, endpoint, List.of(pattern.split("/", -1)));
        }
    }

    static final List<Route> ROUTES = List.of(
            new Route("GET", "/v1/health", BodyKind.NONE, Endpoint.HEALTH),
            new Route("POST", "/v1/check-disk", BodyKind.JSON, Endpoint.CHECK_DISK),
            new Route("POST", "/v1/check-ports", BodyKind.JSON, Endpoint.CHECK_PORTS),
            new Route("GET", "/v1/instances", BodyKind.NONE, Endpoint.LIST),
            new Route("POST", "/v1/instances", BodyKind.JSON, Endpoint.CREATE),
            new Route("PUT", "/v1/instances/{id}", BodyKind.JSON, Endpoint.REPLACE),
            new Route("GET", "/v1/instances/{id}", BodyKind.NONE, Endpoint.INSPECT),
            new Route("DELETE", "/v1/instances/{id}", BodyKind.NONE, Endpoint.DELETE),
            new Route("GET", "/v1/instances/{id}/stats", BodyKind.NONE, Endpoint.STATS),
            new Route("POST", "/v1/instances/{id}/start", BodyKind.NONE, Endpoint.START),
            new Route("POST", "/v1/instances/{id}/stop", BodyKind.OPTIONAL_JSON, Endpoint.STOP),
            new Route("POST", "/v1/instances/{id}/restart", BodyKind.OPTIONAL_JSON, Endpoint.RESTART),
            new Route("GET", "/v1/metrics", BodyKind.NONE, Endpoint.METRICS));

    private static final String ID = "{id}";

    /** The result of a look-up. */
    sealed interface Match {
        /**
         * A route matched.
         *
         * @param route the route
         * @param id    the instance ID from the path, or null
         */
        record Found(Route route, String id) implements Match {
        }

        /**
         * The path exists, the method does not.
         *
         * @param allowed the methods the path has
         */
        record MethodNotAllowed(Set<String> allowed) implements Match {
        }

        /** No such path. */
        record NotFound() implements Match {
        }
    }

    private RouteTable() {
    }

    /**
     * The route a refused request aimed at, for its count and its audit line only (never to act on it).
     *
     * @param method  request method, or null when it could not be read
     * @param rawPath raw request path, or null when it could not be read
     * @return the match, if any
     */
    static Optional<Match.Found> aimedAt(String method, String rawPath) {
        return method != null && rawPath != null && match(method, rawPath) instanceof Match.Found f
                ? Optional.of(f) : Optional.empty();
    }

    /**
     * @param method  request method as Helidon gives it (it upper-cases the request line's method; the
     *                signature is checked over the same text, so a lower-case method signed upper-case works)
     * @param rawPath raw request path as received
     * @return the match
     */
    static Match match(String method, String rawPath) {
        if (!rawPath.startsWith("/")) {
            return new Match.NotFound();
        }
        String[] segments = rawPath.split("/", -1);
        Set<String> allowed = null; // made only for the rare 405
        for (Route route : ROUTES) {
            String id = pathMatch(route.segments(), segments);
            if (id == null) {
                continue;
            }
            if (route.method().equals(method)) {
                return new Match.Found(route, id.isEmpty() ? null : id);
            }
            if (allowed == null) {
                allowed = new LinkedHashSet<>();
            }
            allowed.add(route.method());
        }
        return allowed == null ? new Match.NotFound() : new Match.MethodNotAllowed(allowed);
    }

    /** @return null when the path does not match, else the ID ("" when the pattern has none) */
    private static String pathMatch(List<String> pattern, String[] segments) {
        if (pattern.size() != segments.length) {
            return null;
        }
        String id = "";
        for (int i = 0; i < segments.length; i++) {
            String expected = pattern.get(i);
            if (ID.equals(expected)) {
                if (!Ids.isId(segments[i])) {
                    return null;
                }
                id = segments[i];
            } else if (!expected.equals(segments[i])) {
                return null;
            }
        }
        return id;
    }

    /** @return every distinct path pattern, for documentation and tests */
    static List<String> patterns() {
        List<String> out = new ArrayList<>();
        for (Route r : ROUTES) {
            if (!out.contains(r.pattern())) {
                out.add(r.pattern());
            }
        }
        return out;
    }
}
