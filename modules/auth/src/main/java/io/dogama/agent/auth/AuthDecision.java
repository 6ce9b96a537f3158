package io.dogama.agent.auth;

import io.dogama.agent.core.ProblemCode;
import java.util.Objects;
import java.util.Set;

/**
 * The outcome of {@link Authenticator#verify}: accepted, or rejected with the problem code to answer.
 * Expected failures are values of this type, never exceptions.
 */
public sealed interface AuthDecision permits AuthDecision.Accepted, AuthDecision.Rejected {

    /**
     * The request is authentic, fresh and not a replay; its nonce is now remembered.
     *
     * @param previousSecret true when it was signed with the previous secret (line 2), i.e. the control
     *                       plane has not switched to the new secret yet
     */
    record Accepted(boolean previousSecret) implements AuthDecision {
    }

    /**
     * The request must be answered with this problem and not be acted on.
     *
     * @param code {@code unauthenticated}, {@code stale_request}, {@code replayed_request}, {@code busy}
     *             (the nonce memory is full, or the disk did not take the nonce in time) or {@code internal_error} (the nonce could not be persisted)
     */
    record Rejected(ProblemCode code) implements AuthDecision {
        private static final Set<ProblemCode> CODES = Set.of(ProblemCode.UNAUTHENTICATED, ProblemCode.STALE_REQUEST,
                ProblemCode.REPLAYED_REQUEST, ProblemCode.BUSY, ProblemCode.INTERNAL_ERROR);

        /** @throws IllegalArgumentException for a code authentication never answers */
        public Rejected {
            Objects.requireNonNull(code, "code");
            if (!CODES.contains(code)) {
                throw new IllegalArgumentException("auth: not an authentication problem code: " + code.code());
            }
        }
    }
}
