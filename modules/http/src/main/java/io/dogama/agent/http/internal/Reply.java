package io.dogama.agent.http.internal;

import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A response to write: status, media type and body, and whether the connection must close because
 * the request body was not read to its end.
 *
 * @param status      HTTP status
 * @param contentType media type, null when there is no body
 * @param body        body bytes, null for none
 * @param close       true to close the connection after the response
 * @param headers     extra headers, e.g. {@code Allow}
 * @param code        the problem code of a problem reply, else null
 */
record Reply(int status, String contentType, byte[] body, boolean close, Map<String, String> headers, ProblemCode code) {
    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";
    /**
     * On every answer, the gate's and Helidon's own refusals alike (ProblemDirectHandler); made once, with their
     * bytes, rather than per answer.
     */
    static final Header NO_STORE = HeaderValues.createCached(HeaderNames.CACHE_CONTROL, "no-store");
    static final Header NOSNIFF = HeaderValues.createCached(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");

    Reply {
        headers = Map.copyOf(headers);
    }

    static Reply json(int status, Object value) {
        return new Reply(status, JSON, Json.write(value), false, Map.of(), null);
    }

    /** A 200 with a body of another media type (the metrics' text format). */
    static Reply text(String contentType, byte[] body) {
        return new Reply(200, contentType, body, false, Map.of(), null);
    }

    static Reply noContent() {
        return new Reply(204, null, null, false, Map.of(), null);
    }

    static Reply problem(ProblemCode code) {
        return problem(code, List.of());
    }

    static Reply problem(ProblemCode code, List<Violation> violations) {
        Objects.requireNonNull(code, "code");
        return new Reply(code.status(), PROBLEM_JSON, Json.write(Json.problem(code, violations)), false, Map.of(), code);
    }

    Reply closing() {
        return new Reply(status, contentType, body, true, headers, code);
    }

    Reply withHeader(String name, String value) {
        Map<String, String> more = new java.util.LinkedHashMap<>(headers);
        more.put(name, value);
        return new Reply(status, contentType, body, close, more, code);
    }
}
