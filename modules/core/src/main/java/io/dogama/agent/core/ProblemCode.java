package io.dogama.agent.core;

/**
 * The stable problem codes of SPEC section 4, each with its HTTP status and fixed title. Titles never
 * carry request data.
 */
public enum ProblemCode {
    /** The body is not the JSON the route expects. */
    MALFORMED_REQUEST(400, "The request is malformed."),
    /** A query string was sent. */
    QUERY_NOT_ALLOWED(400, "Query strings are not allowed."),
    /** Authentication failed; no hint which part. */
    UNAUTHENTICATED(401, "The request is not authenticated."),
    /** The timestamp is outside the acceptance window. */
    STALE_REQUEST(401, "The request timestamp is outside the accepted window."),
    /** The nonce was already used. */
    REPLAYED_REQUEST(401, "The request was already received."),
    /** No such route. */
    NOT_FOUND(404, "No such resource."),
    /** No such registered instance. */
    UNKNOWN_INSTANCE(404, "No such instance."),
    /** Known path, other method. */
    METHOD_NOT_ALLOWED(405, "The method is not allowed on this resource."),
    /** The instance ID is taken by another plan. */
    INSTANCE_EXISTS(409, "An instance with this ID already exists."),
    /** expectedRevision is not the current one. */
    REVISION_CONFLICT(409, "The expected revision is not the current revision."),
    /** A host port is taken. */
    PORT_CONFLICT(409, "A requested host port is not available."),
    /** The operation is not allowed in the instance's state. */
    INVALID_TRANSITION(409, "The operation is not allowed in the instance's current state."),
    /** Another operation runs on this instance. */
    INSTANCE_BUSY(409, "Another operation is in progress on this instance."),
    /** Request, registry and container labels disagree. */
    IDENTITY_MISMATCH(409, "The container does not match the registered instance."),
    /** An operator must intervene. */
    INTERVENTION_REQUIRED(409, "The instance requires operator intervention."),
    /** Body over the limit. */
    BODY_TOO_LARGE(413, "The request body is too large."),
    /** Wrong content type. */
    UNSUPPORTED_MEDIA_TYPE(415, "The request body must be application/json."),
    /** The plan violates the policy; violations attached. */
    PLAN_REJECTED(422, "The deployment plan was rejected."),
    /** A bounded resource of the agent is full. */
    BUSY(503, "The agent is busy; retry later."),
    /** The Docker engine does not answer. */
    DOCKER_UNAVAILABLE(503, "The Docker engine is unavailable."),
    /** Anything unexpected. */
    INTERNAL_ERROR(500, "An internal error occurred.");

    private final int status;
    private final String title;

    ProblemCode(int status, String title) {
        this.status = status;
        this.title = title;
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the fixed title */
    public String title() {
        return title;
    }

    /** @return the wire code, e.g. {@code plan_rejected} */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the problem type URI {@code urn:dogama:problem:<code>} */
    public String type() {
        return "urn:dogama:problem:" + code();
    }

    /**
     * The problem document of SPEC section 4, in its field order, as plain values for any JSON writer:
     * {@code type}, {@code title}, {@code status}, {@code code}, and for {@code plan_rejected} the
     * {@code violations} ({@code field}, {@code rule}). The one definition of the format: the API and the
     * offline tools write exactly this.
     *
     * @param violations the violations, only written for {@link #PLAN_REJECTED}; may be empty
     * @return an ordered, unmodifiable map
     */
    public java.util.Map<String, Object> document(java.util.List<Violation> violations) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("type", type());
        m.put("title", title());
        m.put("status", status());
        m.put("code", code());
        if (this == PLAN_REJECTED && !violations.isEmpty()) {
            java.util.List<java.util.Map<String, Object>> list = new java.util.ArrayList<>();
            for (Violation v : violations) {
                java.util.Map<String, Object> vm = new java.util.LinkedHashMap<>();
                vm.put("field", v.field());
                vm.put("rule", v.rule());
                list.add(java.util.Collections.unmodifiableMap(vm));
            }
            m.put("violations", java.util.List.copyOf(list));
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
