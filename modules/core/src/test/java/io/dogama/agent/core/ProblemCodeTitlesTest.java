package io.dogama.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each problem code's title is a fixed sentence of the contract (SPEC section 4): written out here, not read
 * from {@link ProblemCode}, so that a changed title, or one made from request data, fails.
 */
class ProblemCodeTitlesTest {
    private static final Map<ProblemCode, String> TITLES = Map.ofEntries(
            Map.entry(ProblemCode.MALFORMED_REQUEST, "The request is malformed."),
            Map.entry(ProblemCode.QUERY_NOT_ALLOWED, "Query strings are not allowed."),
            Map.entry(ProblemCode.UNAUTHENTICATED, "The request is not authenticated."),
            Map.entry(ProblemCode.STALE_REQUEST, "The request timestamp is outside the accepted window."),
            Map.entry(ProblemCode.REPLAYED_REQUEST, "The request was already received."),
            Map.entry(ProblemCode.NOT_FOUND, "No such resource."),
            Map.entry(ProblemCode.UNKNOWN_INSTANCE, "No such instance."),
            Map.entry(ProblemCode.METHOD_NOT_ALLOWED, "The method is not allowed on this resource."),
            Map.entry(ProblemCode.INSTANCE_EXISTS, "An instance with this ID already exists."),
            Map.entry(ProblemCode.REVISION_CONFLICT, "The expected revision is not the current revision."),
            Map.entry(ProblemCode.PORT_CONFLICT, "A requested host port is not available."),
            Map.entry(ProblemCode.INVALID_TRANSITION, "The operation is not allowed in the instance's current state."),
            Map.entry(ProblemCode.INSTANCE_BUSY, "Another operation is in progress on this instance."),
            Map.entry(ProblemCode.IDENTITY_MISMATCH, "The container does not match the registered instance."),
            Map.entry(ProblemCode.INTERVENTION_REQUIRED, "The instance requires operator intervention."),
            Map.entry(ProblemCode.BODY_TOO_LARGE, "The request body is too large."),
            Map.entry(ProblemCode.UNSUPPORTED_MEDIA_TYPE, "The request body must be application/json."),
            Map.entry(ProblemCode.PLAN_REJECTED, "The deployment plan was rejected."),
            Map.entry(ProblemCode.BUSY, "The agent is busy; retry later."),
            Map.entry(ProblemCode.DOCKER_UNAVAILABLE, "The Docker engine is unavailable."),
            Map.entry(ProblemCode.INTERNAL_ERROR, "An internal error occurred."));

    /** Pins the title each constant of ProblemCode is declared with, and that no constant is left out. */
    @Test
    void everyCodeHasItsFixedTitle() {
        assertEquals(EnumSet.allOf(ProblemCode.class), EnumSet.copyOf(TITLES.keySet()),
                "a problem code without a title in this table, or one that no longer exists");
        for (ProblemCode c : ProblemCode.values()) {
            assertEquals(TITLES.get(c), c.title(), c.code());
        }
    }

    /** Pins ProblemCode.document: the problem document carries that same title, whatever the violations say. */
    @Test
    void theProblemDocumentCarriesTheFixedTitle() {
        List<Violation> violations = List.of(new Violation("mounts[0].source", "outside_allowed_root"));
        for (ProblemCode c : ProblemCode.values()) {
            assertEquals(TITLES.get(c), c.document(List.of()).get("title"), c.code());
            assertEquals(TITLES.get(c), c.document(violations).get("title"), c.code());
        }
    }

    /**
     * The rest of SPEC section 4's document, for a code with and without violations: the code is the constant's
     * lower-case name, the type its URN, the status the HTTP status, and violations only for plan_rejected.
     */
    @Test
    void theProblemDocumentCarriesCodeTypeStatusAndOnlyARejectionsViolations() {
        List<Violation> violations = List.of(new Violation("mounts[0].source", "outside_allowed_root"));
        assertEquals(List.of("type", "title", "status", "code", "violations"),
                List.copyOf(ProblemCode.PLAN_REJECTED.document(violations).keySet()));
        assertEquals(List.of(Map.of("field", "mounts[0].source", "rule", "outside_allowed_root")),
                ProblemCode.PLAN_REJECTED.document(violations).get("violations"));
        assertEquals(List.of("type", "title", "status", "code"),
                List.copyOf(ProblemCode.PLAN_REJECTED.document(List.of()).keySet()));
        assertEquals(List.of("type", "title", "status", "code"),
                List.copyOf(ProblemCode.PORT_CONFLICT.document(violations).keySet()));
        Map<String, Object> busy = ProblemCode.BUSY.document(List.of());
        assertEquals("urn:dogama:problem:busy", busy.get("type"));
        assertEquals(503, busy.get("status"));
        assertEquals("busy", busy.get("code"));
    }

    /** SPEC section 4's list of codes and statuses, written out as the contract has it. */
    @Test
    void everyCodeHasTheContractsStatus() {
        String spec = "malformed_request 400, query_not_allowed 400, unauthenticated 401, stale_request 401, "
                + "replayed_request 401, not_found 404, unknown_instance 404, method_not_allowed 405, "
                + "instance_exists 409, revision_conflict 409, port_conflict 409, invalid_transition 409, "
                + "instance_busy 409, identity_mismatch 409, intervention_required 409, body_too_large 413, "
                + "unsupported_media_type 415, plan_rejected 422, busy 503, docker_unavailable 503, "
                + "internal_error 500";
        Map<String, Integer> codes = new java.util.TreeMap<>();
        for (String entry : spec.split(", ")) {
            codes.put(entry.split(" ")[0], Integer.valueOf(entry.split(" ")[1]));
        }
        Map<String, Integer> actual = new java.util.TreeMap<>();
        for (ProblemCode c : ProblemCode.values()) {
            actual.put(c.code(), c.status());
            assertEquals("urn:dogama:problem:" + c.code(), c.type());
        }
        assertEquals(codes, actual);
    }
}
