package io.dogama.agent.policy;

import io.dogama.agent.core.Plan;
import io.dogama.agent.policy.internal.Canonical;

/**
 * The plan digest of SPEC section 6: {@code sha256:} + lower-case hex SHA-256 of the RFC 8785 (JCS)
 * serialization of the plan without {@code planDigest}. Absent optional fields are omitted. Every
 * number in a plan is an integer within +/-(2^53-1) (the parser enforces it), so the JCS number form
 * is the plain decimal.
 */
public final class PlanDigest {
    private PlanDigest() {
    }

    /**
     * @param plan a parsed plan
     * @return {@code sha256:<64 hex>}
     */
    public static String of(Plan plan) {
        return Canonical.digest(canonicalJson(plan));
    }

    /**
     * The canonical UTF-8 bytes; {@link PlanParser#parse} of them gives back the plan without its
     * {@code planDigest}, so the registry can store exactly these bytes.
     *
     * @param plan a parsed plan
     * @return the RFC 8785 serialization of the plan without {@code planDigest}
     */
    public static byte[] canonicalJson(Plan plan) {
        return Canonical.plan(plan);
    }
}
