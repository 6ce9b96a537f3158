package io.dogama.agent.http.internal;

import io.dogama.agent.core.ProblemCode;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import java.util.Optional;

/**
 * Answers the requests Helidon refuses before any handler runs (an unparsable request line, a
 * header block over the limit, a bad Host header, too many concurrent requests) with problem JSON
 * too, never with Helidon's own text. The message Helidon offers is ignored: it may quote the request.
 *
 * <p>Helidon calls this handler only for requests it refused before the gate ran: the gate answers
 * its own failures, {@code internal_error} included ({@link RequestGate}). A 500 here is therefore
 * Helidon failing on bytes it could not parse, not a fault of the agent: a control character in the
 * method makes {@code Method.create} throw {@link IllegalArgumentException}, which Helidon's
 * connection reports as an internal error (found by {@code HttpFuzzTest}). Such a request is
 * {@code malformed_request}; no input may produce a 5xx.
 */
final class ProblemDirectHandler implements DirectHandler {
    private static final System.Logger LOG = System.getLogger(ProblemDirectHandler.class.getName());

    private final Accountant accountant;

    /** @param accountant counts each refusal and writes its audit line, as the gate does for its own */
    ProblemDirectHandler(Accountant accountant) {
        this.accountant = accountant;
    }

    @Override
    public TransportResponse handle(TransportRequest request, EventType eventType, Status defaultStatus,
            ServerResponseHeaders responseHeaders, String message) {
        ProblemCode code = codeFor(defaultStatus.code());
        account(request, code);
        Reply reply = Reply.problem(code);
        ServerResponseHeaders headers = ServerResponseHeaders.create();
        headers.set(HeaderNames.CONTENT_TYPE, Reply.PROBLEM_JSON);
        headers.set(Reply.NO_STORE);
        headers.set(Reply.NOSNIFF);
        headers.set(HeaderValues.CONNECTION_CLOSE);
        return TransportResponse.builder()
                .status(Status.create(code.status()))
                .headers(headers)
                .entity(reply.body())
                .keepAlive(false)
                .build();
    }

    /**
     * Every refused request is an audit line (SPEC section 14), these too: a body declared past the limit,
     * an unparsable request. Unauthenticated by definition, so within the log's limit for those. The route
     * is the table's entry the request aimed at, if it can be told; never its raw path.
     */
    private void account(TransportRequest request, ProblemCode code) {
        try {
            Optional<RouteTable.Match.Found> aimed = RouteTable.aimedAt(request.method(), request.path());
            RouteTable.Route route = aimed.map(RouteTable.Match.Found::route).orElse(null);
            String id = aimed.map(RouteTable.Match.Found::id).orElse(null);
            accountant.answered(route, code.status());
            accountant.refusedUnauthenticated(route, id, code,
                    StrictHttp1Selector.PEER.isBound() ? StrictHttp1Selector.PEER.get() : null);
        } catch (RuntimeException e) {
            // Accounting never costs a request its answer.
            LOG.log(System.Logger.Level.ERROR, "http: accounting a refused request failed", e);
        }
    }

    static ProblemCode codeFor(int status) {
        // Everything else Helidon refuses (400, 414, 431, 505 for HTTP/1.0, 501, and 500: see the class comment)
        // is a request we cannot parse.
        return switch (status) {
            case 413 -> ProblemCode.BODY_TOO_LARGE;
            case 503 -> ProblemCode.BUSY;
            default -> ProblemCode.MALFORMED_REQUEST;
        };
    }
}
