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
}
