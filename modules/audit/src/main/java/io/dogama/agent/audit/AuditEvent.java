package io.dogama.agent.audit;

import io.dogama.agent.core.Ids;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What one audit line says (SPEC section 14). Every field is a closed vocabulary or a checked
 * syntax, so that no secret, signature, body, env value or resolved path can ever be put in a line:
 * a route is a route-table pattern (never the raw path), an instance ID has the ID syntax, an
 * outcome and a rule are lower-case codes, a plan digest is {@code sha256:} and hex, a peer is an IP
 * address and port. Build one with {@link #builder(Kind, String)}.
 *
 * @param kind           what happened
 * @param route          the route-table entry ({@code "POST /v1/instances/{id}/start"}), {@code "-"} when
 *                       no route matched, {@code "startup"} for the reconciliation, or {@code "request"} for the
 *                       recovery a request ran first on a record an earlier request left unfinished
 * @param instanceId     the instance, or null
 * @param outcome        {@code ok}, a problem code of SPEC section 4, or a reconciliation action
 * @param status         the HTTP status answered, or 0 (none: a begin line, a reconciliation)
 * @param revisionBefore the instance's revision before the operation, or -1 when unknown
 * @param revisionAfter  the instance's revision after it, or -1 when none or unknown
 * @param planDigest     the plan digest of the result, or null
 * @param durationMillis how long the operation took, or -1 when not measured
 * @param peer           the caller's IP address and port ({@code 10.0.0.5:41234}), or null
 * @param rules          the rule names of a {@code plan_rejected} answer, else empty
 */
public record AuditEvent(Kind kind, String route, String instanceId, String outcome, int status, long revisionBefore,
        long revisionAfter, String planDigest, long durationMillis, String peer, List<String> rules) {

    /** Most rule names on one line; more are summarised by their count. */
    public static final int MAX_RULES = 16;

    private static final Pattern ROUTE = Pattern.compile("^(startup|request|-|[A-Z]{3,7} /v1(/[a-z0-9{}-]{1,32}){0,3})$");
    private static final Pattern CODE = Pattern.compile("^[a-z][a-z0-9_]{0,47}$");
    private static final Pattern DIGEST = Pattern.compile("^sha256:[0-9a-f]{64}$");
    // An IPv4 or IPv6 literal (with an optional zone of word characters) and a port; nothing else.
    private static final Pattern PEER = Pattern.compile("^(\\[[0-9a-fA-F:.]{2,45}(%[A-Za-z0-9_.-]{1,16})?\\]|[0-9.]{7,15}):[0-9]{1,5}$");

    /** What a line records. */
    public enum Kind {
        /** A mutating request was authenticated and is about to act: written durably before it does. */
        BEGIN,
        /** A mutating request's result. */
        END,
        /** A request answered with a refusal that is not a mutation's result (authentication, routing, reads). */
        REFUSED,
        /** What the start-up reconciliation did to one record. */
        RECONCILE;

        /** @return the lower-case name written in the line */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Checks every field against its syntax; see the class comment. */
    public AuditEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(outcome, "outcome");
        rules = List.copyOf(Objects.requireNonNull(rules, "rules"));
        if (!ROUTE.matcher(route).matches()) {
            throw new IllegalArgumentException("audit: route is not a route-table pattern");
        }
        if (instanceId != null && !Ids.isId(instanceId)) {
            throw new IllegalArgumentException("audit: instanceId is not an instance ID");
        }
        if (!CODE.matcher(outcome).matches()) {
            throw new IllegalArgumentException("audit: outcome is not a code");
        }
        if (status != 0 && (status < 100 || status > 599)) {
            throw new IllegalArgumentException("audit: status out of range");
        }
        if (revisionBefore < -1 || revisionAfter < -1 || durationMillis < -1) {
            throw new IllegalArgumentException("audit: negative revision or duration");
        }
        if (planDigest != null && !DIGEST.matcher(planDigest).matches()) {
            throw new IllegalArgumentException("audit: planDigest is not a digest");
        }
        if (peer != null && !PEER.matcher(peer).matches()) {
            throw new IllegalArgumentException("audit: peer is not an address and port");
        }
        for (String r : rules) {
            if (!CODE.matcher(r).matches()) {
                throw new IllegalArgumentException("audit: rule is not a code");
            }
        }
        if (rules.size() > MAX_RULES) {
            rules = rules.subList(0, MAX_RULES);
        }
    }

    /**
     * @param kind  what happened
     * @param route the route-table pattern, {@code "-"}, {@code "startup"} or {@code "request"}
     * @return a builder with outcome {@code ok} and nothing else set
     */
    public static Builder builder(Kind kind, String route) {
        return new Builder(kind, route);
    }

    /** Builds an {@link AuditEvent}; unset fields are absent from the line. */
    public static final class Builder {
        private final Kind kind;
        private final String route;
        private String instanceId;
        private String outcome = "ok";
        private int status;
        private long revisionBefore = -1;
        private long revisionAfter = -1;
        private String planDigest;
        private long durationMillis = -1;
        private String peer;
        private List<String> rules = List.of();

        private Builder(Kind kind, String route) {
            this.kind = kind;
            this.route = route;
        }

        /** @param id the instance, or null @return this */
        public Builder instanceId(String id) {
            this.instanceId = id;
            return this;
        }

        /** @param code {@code ok}, a problem code or a reconciliation action @return this */
        public Builder outcome(String code) {
            this.outcome = code;
            return this;
        }

        /** @param httpStatus the status answered @return this */
        public Builder status(int httpStatus) {
            this.status = httpStatus;
            return this;
        }

        /** @param before revision before, -1 unknown @param after revision after, -1 none @return this */
        public Builder revisions(long before, long after) {
            this.revisionBefore = before;
            this.revisionAfter = after;
            return this;
        }

        /** @param digest {@code sha256:...}, or null @return this */
        public Builder planDigest(String digest) {
            this.planDigest = digest;
            return this;
        }

        /** @param millis duration @return this */
        public Builder durationMillis(long millis) {
            this.durationMillis = millis;
            return this;
        }

        /** @param address IP address and port, or null @return this */
        public Builder peer(String address) {
            this.peer = address;
            return this;
        }

        /** @param names rule names of a plan rejection @return this */
        public Builder rules(List<String> names) {
            this.rules = names;
            return this;
        }

        /**
         * @return the event
         * @throws IllegalArgumentException if a field breaks its syntax
         */
        public AuditEvent build() {
            return new AuditEvent(kind, route, instanceId, outcome, status, revisionBefore, revisionAfter, planDigest,
                    durationMillis, peer, rules);
        }
    }
}
