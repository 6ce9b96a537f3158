package io.dogama.agent.http.internal;

import io.dogama.agent.auth.AuthDecision;
import io.dogama.agent.core.ProblemCode;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * When a mutation may run: once its audit begin line is on disk and its nonce is too (SPEC sections 3 and
 * 14). The begin line is written while the nonce's journal line is being forced, so a mutation waits for
 * the slower of the two forced writes instead of for both in turn; neither is skipped, and nothing is done
 * for the request before both are on disk.
 */
final class MutationStart {
    private MutationStart() {
    }

    /** Whether the mutation may run. */
    sealed interface Outcome permits Go, Refused {
    }

    /** Both are on disk: run it. */
    record Go() implements Outcome {
    }

    /**
     * It must not run.
     *
     * @param code  the answer
     * @param begun true when its begin line is on disk, so that its end line must say why nothing was done
     */
    record Refused(ProblemCode code, boolean begun) implements Outcome {
        Refused {
            Objects.requireNonNull(code, "code");
        }
    }

    private static final Go GO = new Go();

    /**
     * @param writeBegin writes the begin line and waits for it; false if it could not be written
     * @param settle     waits for the request's nonce to be on disk ({@code Check.Authentic#settle})
     * @return go, or the refusal; the nonce has settled either way, so the answer may be given
     */
    static Outcome start(BooleanSupplier writeBegin, Supplier<AuthDecision> settle) {
        boolean begun = writeBegin.getAsBoolean();
        AuthDecision nonce = settle.get();
        if (nonce instanceof AuthDecision.Rejected rejected) {
            return new Refused(rejected.code(), begun);
        }
        return begun ? GO : new Refused(ProblemCode.BUSY, false);
    }
}
