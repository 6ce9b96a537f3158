package io.dogama.agent.client;

import java.util.Locale;

/** The stable problem codes of SPEC section 4, each with the HTTP status the agent answers it with. */
public enum ProblemCode {
    /** 400: the body is not the JSON the route expects. */
    MALFORMED_REQUEST(400),
    /** 400: a query string was sent. */
    QUERY_NOT_ALLOWED(400),
    /** 401: the signature, a header or the secret is wrong; the agent gives no hint which. */
    UNAUTHENTICATED(401),
    /**
     * 401: the timestamp is more than 30 s from the agent's clock. Decided before the nonce is accepted and
     * before anything is acted on, so re-signing and resending is safe ({@link DogamaClient.Builder#retryStaleRequests}).
     */
    STALE_REQUEST(401),
    /** 401: the nonce was accepted before. */
    REPLAYED_REQUEST(401),
    /** 404: no such route. */
    NOT_FOUND(404),
    /** 404: no such registered instance. */
    UNKNOWN_INSTANCE(404),
    /** 405: known path, other method. */
    METHOD_NOT_ALLOWED(405),
    /** 409: the instance ID is taken by another plan. */
    INSTANCE_EXISTS(409),
    /** 409: expectedRevision is not the current revision. */
    REVISION_CONFLICT(409),
    /** 409: a requested host port is taken. */
    PORT_CONFLICT(409),
    /** 409: the operation is not allowed in the instance's state. */
    INVALID_TRANSITION(409),
    /** 409: another operation runs on this instance. */
    INSTANCE_BUSY(409),
    /** 409: request, registry and container labels disagree. */
    IDENTITY_MISMATCH(409),
    /** 409: an operator must intervene. */
    INTERVENTION_REQUIRED(409),
    /** 413: the body is over 64 KiB. */
    BODY_TOO_LARGE(413),
    /** 415: the body is not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE(415),
    /** 422: the plan breaks the policy; see {@link Problem.PlanRejected#violations()}. */
    PLAN_REJECTED(422),
    /** 503: a bounded resource of the agent is full. */
    BUSY(503),
    /** 503: the Docker engine does not answer. */
    DOCKER_UNAVAILABLE(503),
    /** 500: anything unexpected. */
    INTERNAL_ERROR(500);

    private final int status;

    ProblemCode(int status) {
        this.status = status;
    }

    /** @return the HTTP status the agent answers this code with */
    public int status() {
        return status;
    }

    /** @return the wire code, e.g. {@code plan_rejected} */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param wire a wire code
     * @return the code, or null if this client does not know it (a newer agent)
     */
    public static ProblemCode fromWire(String wire) {
        for (ProblemCode c : values()) {
            if (c.wire().equals(wire)) {
                return c;
            }
        }
        return null;
    }
}
