package io.dogama.agent.http.internal;

import io.dogama.agent.auth.AuthDecision;
import io.dogama.agent.auth.Authenticator;
import io.dogama.agent.core.ProblemCode;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.HttpPrologue;
import io.helidon.http.RequestException;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * The single handler behind every method and path. It applies the checks of SPEC section 3 in
 * order before anything is routed or parsed: body size (413, from Content-Length before reading,
 * or while reading a chunked body), query string (400), authentication (401, 503); then the route
 * table (404, 405), the body rule and media type (400, 415), and the operation. Any unexpected
 * exception becomes a 500 {@code internal_error} without detail.
 *
 * <p>Every answer given before a request is authenticated closes its connection (SPEC section 3, 1.1):
 * an unauthenticated client gets one answer per connection and keeps no slot. A request permit is
 * taken only once a request is read and authenticated, so clients that trickle bodies hold none.
 */
final class RequestGate implements Handler {
    private static final System.Logger LOG = System.getLogger(RequestGate.class.getName());
    private static final Pattern JSON_MEDIA_TYPE =
            Pattern.compile("application/json[ \\t]*(;[ \\t]*charset[ \\t]*=[ \\t]*(utf-8|\"utf-8\")[ \\t]*)?",
                    Pattern.CASE_INSENSITIVE);
    private static final int READ_CHUNK = 8192;
    private static final byte[] EMPTY_SHA256 = sha256().digest();
    /** The names the authenticator asks for on every request, made once rather than lower-cased each time. */
    private static final Map<String, HeaderName> AUTH_HEADERS = Map.of(
            Authenticator.AUTHORIZATION_HEADER, HeaderNames.create(Authenticator.AUTHORIZATION_HEADER),
            Authenticator.TIMESTAMP_HEADER, HeaderNames.create(Authenticator.TIMESTAMP_HEADER),
            Authenticator.NONCE_HEADER, HeaderNames.create(Authenticator.NONCE_HEADER));

    private final Authenticator authenticator;
    private final Dispatcher dispatcher;
    private final Accountant accountant;
    private final int maxBodyBytes;
    private final ConnectionWatchdog watchdog;
    private final Semaphore permits;
    /** Of {@link #permits}, those a mutation may hold (HttpLimits.maxConcurrentMutations says why). */
    private final Semaphore mutationPermits;
    private final AtomicBoolean previousSecretSeen = new AtomicBoolean();

    RequestGate(Authenticator authenticator, Dispatcher dispatcher, Accountant accountant, int maxBodyBytes,
            int maxConcurrentRequests, int maxConcurrentMutations, ConnectionWatchdog watchdog) {
        this.authenticator = authenticator;
        this.dispatcher = dispatcher;
        this.accountant = accountant;
        this.maxBodyBytes = maxBodyBytes;
        this.permits = new Semaphore(maxConcurrentRequests);
        this.mutationPermits = new Semaphore(maxConcurrentMutations);
        this.watchdog = watchdog;
    }

    /** The body could not be read (client gone, timed out, broken chunking); the connection is unusable. */
    private static final class BrokenBody extends Exception {
        private static final long serialVersionUID = 1L;

        BrokenBody(Throwable cause) {
            super("http: request body could not be read", cause, false, false);
        }
    }

    /** The body exceeds the limit while being read. */
    private static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("http: request body too large", null, false, false);
        }
    }

    private record Body(byte[] bytes, byte[] sha256) {
    }

    /** What one request turned out to be, for its accounting; filled in as it passes the gate. */
    private static final class Facts {
        /** {@link System#nanoTime()} when the request reached the gate, before anything was checked */
        private final long arrived = System.nanoTime();
        private boolean authenticated;
        private boolean routed;
        private RouteTable.Route route;
        private String id;
        private List<String> rules = List.of();
        /** true once a mutation wrote its own begin and end lines */
        private boolean audited;
    }

    @Override
    public void handle(ServerRequest req, ServerResponse res) {
        ConnectionWatchdog.Key connection = new ConnectionWatchdog.Key(req.localPeer().address(),
                req.remotePeer().address());
        if (watchdog.refuseEnded(connection)) {
            // Bytes that followed an answer with "Connection: close" (e.g. a refused body): never a request.
            // Helidon ends the connection quietly on this exception; a handler that just returned would make
            // it log a WARNING naming the request's path, one per connection for anyone, without a limit.
            throw new CloseConnectionException("http: a request after an answer that ended its connection");
        }
        Reply reply;
        Facts facts = new Facts();
        try {
            reply = process(req, connection, facts);
        } catch (BrokenBody e) {
            LOG.log(System.Logger.Level.DEBUG, "http: request body could not be read");
            reply = Reply.problem(ProblemCode.MALFORMED_REQUEST).closing();
        } catch (TooLarge e) {
            reply = Reply.problem(ProblemCode.BODY_TOO_LARGE).closing();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "http: unexpected failure handling a request", e);
            reply = Reply.problem(ProblemCode.INTERNAL_ERROR).closing();
        }
        if (!reply.close() && clientEnds(req)) {
            // The answer then says so too, and the connection ends after it: no idle keep-alive until the
            // watchdog's timeout, and nothing the client sent after this request is ever served.
            reply = reply.closing();
        }
        account(req, facts, reply);
        watchdog.writing(connection);
        try {
            write(res, reply, "HEAD".equals(req.prologue().method().text()));
        } finally {
            watchdog.answered(connection);
            if (reply.close()) {
                watchdog.end(connection);
            }
        }
    }

    /**
     * @return true if the client ends the connection with this request: a {@code close} token in any
     *         Connection header (RFC 9112 section 9.6). HTTP/1.0, where that is the default, never gets
     *         this far: Helidon refuses it as malformed.
     */
    static boolean clientEnds(ServerRequest req) {
        if (!req.headers().contains(HeaderNames.CONNECTION)) {
            return false; // most requests: no token to split
        }
        for (String value : req.headers().all(HeaderNames.CONNECTION, List::of)) {
            for (String token : value.split(",", -1)) {
                if (token.strip().equalsIgnoreCase("close")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Counts the answer and writes a refusal's audit line; a mutation wrote its own lines already. */
    private void account(ServerRequest req, Facts facts, Reply reply) {
        try {
            if (!facts.routed && reply.code() != null) {
                // Refused before routing: the route the request aimed at, from the same table (never its raw path).
                HttpPrologue p = req.prologue();
                RouteTable.aimedAt(p.method().text(), p.uriPath().rawPath()).ifPresent(f -> {
                    facts.route = f.route();
                    facts.id = f.id();
                });
            }
            accountant.answered(facts.route, reply.status());
            if (reply.code() == null || facts.audited) {
                return;
            }
            if (facts.authenticated) {
                accountant.refused(facts.route, facts.id, reply.code(), facts.rules, req.remotePeer().address());
            } else {
                accountant.refusedUnauthenticated(facts.route, facts.id, reply.code(), req.remotePeer().address());
            }
        } catch (RuntimeException e) {
            // Accounting never costs a request its answer.
            LOG.log(System.Logger.Level.ERROR, "http: accounting a request failed", e);
        }
    }

    private Reply process(ServerRequest req, ConnectionWatchdog.Key connection, Facts facts)
            throws BrokenBody, TooLarge {
        HttpPrologue prologue = req.prologue();
        ServerRequestHeaders headers = req.headers();

        // 1. Limits and framing, before any parsing or dispatch.
        List<String> transferEncoding = headers.all(HeaderNames.TRANSFER_ENCODING, List::of);
        boolean chunked = transferEncoding.size() == 1 && "chunked".equalsIgnoreCase(transferEncoding.getFirst());
        if (!transferEncoding.isEmpty() && (!chunked || headers.contains(HeaderNames.CONTENT_LENGTH))) {
            // Any other transfer coding, or both framings at once, is how requests get smuggled.
            return Reply.problem(ProblemCode.MALFORMED_REQUEST).closing();
        }
        if (headers.all(HeaderNames.CONTENT_LENGTH, List::of).size() > 1) {
            // Helidon 4.5 refuses this before routing (LimitsOverHttpTest.ambiguousFramingIs400); kept for a
            // Helidon that would not, as the body below is read by the one length Helidon took.
            return Reply.problem(ProblemCode.MALFORMED_REQUEST).closing();
        }
        // A Content-Length past the limit never gets here: Helidon refuses it with 413 before routing, from the
        // same limit (Listener sets maxPayloadSize); a chunked body is measured by StrictChunkReader and below.
        OptionalLong contentLength = headers.contentLength();
        Body body = readBody(req, chunked || contentLength.orElse(0) > 0);
        watchdog.working(connection); // the whole request is in; the agent's own time is not limited

        // 1b. No query string, not even an empty one; no fragment, which HTTP never allows in a request target.
        if (prologue.hasQuery() || !prologue.query().rawValue().isEmpty()) {
            return Reply.problem(ProblemCode.QUERY_NOT_ALLOWED).closing();
        }
        if (prologue.fragment().hasValue()) {
            return Reply.problem(ProblemCode.MALFORMED_REQUEST).closing();
        }

        // 2-4. Authentication, freshness, replay.
        String method = prologue.method().text();
        String rawPath = prologue.uriPath().rawPath();
        AuthDecision decision = authenticator.verify(method, rawPath, name -> values(headers, name), body.sha256());
        if (decision instanceof AuthDecision.Rejected rejected) {
            return Reply.problem(rejected.code()).closing();
        }
        watchdog.authenticated(connection);
        facts.authenticated = true;
        if (decision instanceof AuthDecision.Accepted accepted && accepted.previousSecret()
                && previousSecretSeen.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.INFO, "http: a request was signed with the previous secret; the rotation "
                    + "is not finished until the control plane uses the new one");
        }

        // 5. Routing on the raw path, then the body rule, then the operation, within a permit.
        if (!permits.tryAcquire()) {
            return Reply.problem(ProblemCode.BUSY);
        }
        try {
            return route(method, rawPath, headers, body, facts, req.remotePeer().address());
        } finally {
            permits.release();
        }
    }

    private Reply route(String method, String rawPath, ServerRequestHeaders headers, Body body, Facts facts,
            java.net.SocketAddress peer) {
        facts.routed = true;
        return switch (RouteTable.match(method, rawPath)) {
            case RouteTable.Match.NotFound n -> Reply.problem(ProblemCode.NOT_FOUND);
            case RouteTable.Match.MethodNotAllowed m ->
                    Reply.problem(ProblemCode.METHOD_NOT_ALLOWED).withHeader("Allow", String.join(", ", m.allowed()));
            case RouteTable.Match.Found f -> {
                facts.route = f.route();
                facts.id = f.id();
                if (bodyRule(f.route(), headers, body.bytes()) instanceof Reply refused) {
                    yield refused;
                }
                if (!f.route().endpoint().mutating()) {
                    yield read(f, body, facts);
                }
                if (!mutationPermits.tryAcquire()) {
                    yield Reply.problem(ProblemCode.BUSY);
                }
                try {
                    yield mutate(f, body, facts, peer);
                } finally {
                    mutationPermits.release();
                }
            }
        };
    }

    private Reply read(RouteTable.Match.Found f, Body body, Facts facts) {
        Dispatcher.Dispatched d = dispatcher.dispatch(f.route().endpoint(), f.id(), body.bytes(), facts.arrived);
        facts.rules = d.result().rules();
        return d.reply();
    }

    /**
     * A mutation runs only once its begin line is on disk (else 503 {@code busy}, and nothing is done),
     * and is answered only after its end line was written (SPEC section 14): no mutation is unaudited.
     */
    private Reply mutate(RouteTable.Match.Found f, Body body, Facts facts, java.net.SocketAddress peer) {
        if (!accountant.begin(f.route(), f.id(), peer)) {
            return Reply.problem(ProblemCode.BUSY);
        }
        long start = System.nanoTime();
        Dispatcher.Dispatched d = dispatcher.dispatch(f.route().endpoint(), f.id(), body.bytes(), facts.arrived);
        accountant.end(f.route(), f.id(), d.result(), d.reply().status(), System.nanoTime() - start, peer);
        facts.audited = true;
        return d.reply();
    }

    /** @return a refusal, or null when the body fits the route */
    private static Reply bodyRule(RouteTable.Route route, ServerRequestHeaders headers, byte[] body) {
        return switch (route.body()) {
            case NONE -> body.length == 0 ? null : Reply.problem(ProblemCode.MALFORMED_REQUEST);
            case OPTIONAL_JSON -> body.length == 0 || isJson(headers) ? null
                    : Reply.problem(ProblemCode.UNSUPPORTED_MEDIA_TYPE);
            case JSON -> !isJson(headers) ? Reply.problem(ProblemCode.UNSUPPORTED_MEDIA_TYPE)
                    : body.length == 0 ? Reply.problem(ProblemCode.MALFORMED_REQUEST) : null;
        };
    }

    private static boolean isJson(ServerRequestHeaders headers) {
        List<String> types = headers.all(HeaderNames.CONTENT_TYPE, List::of);
        return types.size() == 1 && JSON_MEDIA_TYPE.matcher(types.getFirst()).matches();
    }

    private static List<String> values(ServerRequestHeaders headers, String name) {
        HeaderName headerName = AUTH_HEADERS.get(name);
        return headers.all(headerName != null ? headerName : HeaderNames.create(name), List::of);
    }

    private Body readBody(ServerRequest req, boolean hasEntity) throws BrokenBody, TooLarge {
        if (!hasEntity || !req.content().hasEntity()) {
            // Most requests: the digest of nothing, known in advance (no digest looked up per request).
            return new Body(new byte[0], EMPTY_SHA256.clone());
        }
        MessageDigest sha256 = sha256();
        byte[] buffer = new byte[Math.min(maxBodyBytes + 1, READ_CHUNK)];
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        // Not closed on purpose: closing drains the rest of the entity, which is what a 413 must not wait for.
        // A body read to its end needs no close; any other is abandoned with the connection.
        try {
            InputStream in = req.content().inputStream();
            int n;
            // Never ask for more than one byte past the limit: Helidon's stream fills a request across chunk
            // boundaries, and would otherwise wait for a chunk the client may never send.
            while ((n = in.read(buffer, 0, Math.min(buffer.length, maxBodyBytes + 1 - out.size()))) != -1) {
                if (out.size() + n > maxBodyBytes) {
                    throw new TooLarge(); // stop reading; the connection is closed after the answer
                }
                out.write(buffer, 0, n);
                sha256.update(buffer, 0, n);
            }
        } catch (IOException | UncheckedIOException e) {
            throw new BrokenBody(e);
        } catch (RequestException e) {
            // A chunk size past the limit, refused by the strict reader (or by Helidon) before it was read.
            if (e.status().code() == ProblemCode.BODY_TOO_LARGE.status()) {
                throw new TooLarge();
            }
            throw new BrokenBody(e);
        } catch (RuntimeException e) {
            // Helidon reports broken chunked framing and socket timeouts as its own runtime exceptions.
            throw new BrokenBody(e);
        }
        return new Body(out.toByteArray(), sha256.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("http: SHA-256 is unavailable", e);
        }
    }

    private static void write(ServerResponse res, Reply reply, boolean head) {
        if (res.isSent()) {
            return;
        }
        res.status(Status.create(reply.status()));
        res.header(Reply.NO_STORE);
        res.header(Reply.NOSNIFF);
        for (Map.Entry<String, String> h : reply.headers().entrySet()) {
            res.header(h.getKey(), h.getValue());
        }
        if (reply.close()) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        if (reply.body() == null || head) {
            res.send(); // a HEAD answer never carries a body
        } else {
            res.header(HeaderNames.CONTENT_TYPE, reply.contentType());
            res.send(reply.body());
        }
    }
}
