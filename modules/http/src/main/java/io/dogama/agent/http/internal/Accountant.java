package io.dogama.agent.http.internal;

import io.dogama.agent.audit.AuditEvent;
import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.metrics.Metrics;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Locale;

/**
 * The HTTP surface's accounting: audit lines (SPEC section 14) and request metrics. What goes into a
 * line is chosen here from typed facts only (the route-table pattern, the instance ID from a matched
 * path, problem codes and rule names, revisions, the digest, the peer address): never a header, a
 * body, the raw path or anything an operation resolved.
 */
final class Accountant {
    private static final System.Logger LOG = System.getLogger(Accountant.class.getName());
    /** Route label and audit route when no route matched: the raw path is never a label or a line. */
    static final String UNMATCHED = "-";

    private final AuditLog audit;
    private final Metrics.Counter requests;
    private final Metrics.Counter authRefusals;
    private final Metrics.Counter operations;
    private final Metrics.Histogram operationSeconds;
    private final Metrics.Counter unaudited;

    Accountant(AuditLog audit, Metrics metrics) {
        this.audit = audit;
        this.requests = metrics.counter("dogama_http_requests_total",
                "Requests answered, by route-table entry (\"-\" when none matched) and HTTP status.", "route", "status");
        this.authRefusals = metrics.counter("dogama_auth_refusals_total",
                "Requests refused by authentication, by reason (the problem code).", "reason");
        this.operations = metrics.counter("dogama_lifecycle_operations_total",
                "Mutating operations, by kind and outcome (ok or the problem code).", "operation", "outcome");
        this.operationSeconds = metrics.histogram("dogama_lifecycle_operation_duration_seconds",
                "Duration of mutating operations, by kind and outcome.", Metrics.LATENCY_BUCKETS, "operation", "outcome");
        this.unaudited = metrics.counter("dogama_audit_refused_mutations_total",
                "Mutations refused (503 busy) because their audit line could not be written.");
    }

    /** "METHOD pattern" of each route, made once: the label is needed on every request. */
    private static final java.util.Map<RouteTable.Route, String> LABELS = labels();

    private static java.util.Map<RouteTable.Route, String> labels() {
        java.util.Map<RouteTable.Route, String> m = new java.util.IdentityHashMap<>();
        RouteTable.ROUTES.forEach(r -> m.put(r, r.method() + " " + r.pattern()));
        return m;
    }

    /** The label and audit route of a match: "METHOD pattern", or {@link #UNMATCHED}. */
    static String route(RouteTable.Route r) {
        if (r == null) {
            return UNMATCHED;
        }
        String label = LABELS.get(r);
        return label != null ? label : r.method() + " " + r.pattern();
    }

    /** Counts every answer. */
    void answered(RouteTable.Route route, int status) {
        requests.inc(route(route), Integer.toString(status));
    }

    /**
     * A refusal before the request was authenticated (limits, framing, query, signature, freshness,
     * replay): counted, and written at the log's rate limit for the unauthenticated.
     */
    void refusedUnauthenticated(RouteTable.Route route, String id, ProblemCode code, SocketAddress peer) {
        if (code.status() == 401 || code == ProblemCode.BUSY) {
            authRefusals.inc(code.code());
        }
        if (audit != null) {
            // Only the authenticator answers these two, and only once a request's signature checked out: someone
            // holds the key or sent a captured request again, which a flood of unsigned requests must not hide.
            boolean signed = code == ProblemCode.REPLAYED_REQUEST || code == ProblemCode.STALE_REQUEST;
            event(AuditEvent.builder(AuditEvent.Kind.REFUSED, route(route)).instanceId(id).outcome(code.code())
                    .status(code.status()).peer(peer(peer)),
                    signed ? audit::noteSignedRefusal : audit::noteUnauthenticated);
        }
    }

    /** A refusal of an authenticated request that is not a mutation's result (routing, body rule, a read). */
    void refused(RouteTable.Route route, String id, ProblemCode code, List<String> rules, SocketAddress peer) {
        if (audit != null) {
            event(AuditEvent.builder(AuditEvent.Kind.REFUSED, route(route)).instanceId(id).outcome(code.code())
                    .status(code.status()).rules(rules).peer(peer(peer)), audit::note);
        }
    }

    /**
     * Writes a mutation's begin line and waits for it to be on disk.
     *
     * @return false if it could not be written: the mutation must not run
     */
    boolean begin(RouteTable.Route route, String id, SocketAddress peer) {
        if (audit == null) {
            return true;
        }
        // "admitted": authenticated and about to act; the end line says how it ended.
        AuditEvent e = build(AuditEvent.builder(AuditEvent.Kind.BEGIN, route(route)).instanceId(id).outcome("admitted")
                .peer(peer(peer)));
        if (e != null && audit.record(e)) {
            return true;
        }
        unaudited.inc();
        return false;
    }

    /** The facts of a mutation's result that its end line records. */
    record Result(ProblemCode code, String instanceId, long revisionBefore, long revisionAfter, String planDigest,
            List<String> rules) {
        static Result failed(ProblemCode code, List<String> rules) {
            return new Result(code, null, -1, -1, null, rules);
        }
    }

    /** Writes a mutation's end line (waiting for it) and counts the operation. */
    void end(RouteTable.Route route, String pathId, Result r, int status, long nanos, SocketAddress peer) {
        String operation = route.endpoint().name().toLowerCase(Locale.ROOT);
        String outcome = r.code() == null ? "ok" : r.code().code();
        operations.inc(operation, outcome);
        operationSeconds.observe(nanos / 1e9, operation, outcome);
        if (audit == null) {
            return;
        }
        AuditEvent e = build(AuditEvent.builder(AuditEvent.Kind.END, route(route))
                .instanceId(pathId != null ? pathId : r.instanceId()).outcome(outcome).status(status)
                .revisions(r.revisionBefore(), r.revisionAfter()).planDigest(r.planDigest())
                .durationMillis(nanos / 1_000_000).peer(peer(peer)).rules(r.rules()));
        if (e == null || !audit.record(e)) {
            // The mutation is done and its begin line is on disk; only its result is missing from the log.
            LOG.log(System.Logger.Level.ERROR, "http: the audit line of a finished {0} could not be written", operation);
        }
    }

    private static void event(AuditEvent.Builder b, java.util.function.Consumer<AuditEvent> sink) {
        AuditEvent e = build(b);
        if (e != null) {
            sink.accept(e);
        }
    }

    /** @return the event, or null (logged) if a fact broke its syntax: never a failed request because of the log */
    private static AuditEvent build(AuditEvent.Builder b) {
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.ERROR, "http: an audit event was malformed: " + e.getMessage());
            return null;
        }
    }

    /** @return "ip:port" ("[v6]:port"), or null */
    static String peer(SocketAddress address) {
        if (!(address instanceof InetSocketAddress isa) || isa.getAddress() == null) {
            return null;
        }
        String host = isa.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + isa.getPort();
    }
}
