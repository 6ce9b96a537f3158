package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import java.io.Serial;
import java.util.List;

/**
 * An expected failure inside an operation, carrying the problem code the caller gets. It only
 * travels inside this package (so that every step can stay a straight line of code) and is turned
 * into an {@link Outcome} at the operation's boundary. No stack trace: it is not a bug.
 */
final class Abort extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    private final transient ProblemCode code;
    private final transient List<Violation> violations;

    Abort(ProblemCode code) {
        this(code, List.of());
    }

    private Abort(ProblemCode code, List<Violation> violations) {
        super("lifecycle: " + code.code(), null, false, false);
        this.code = code;
        this.violations = List.copyOf(violations);
    }

    static Abort of(Outcome.Failed<?> failed) {
        return new Abort(failed.code(), failed.violations());
    }

    static Abort rejected(String field, String rule) {
        return new Abort(ProblemCode.PLAN_REJECTED, List.of(new Violation(field, rule)));
    }

    ProblemCode code() {
        return code;
    }

    <T> Outcome<T> outcome() {
        return code == ProblemCode.PLAN_REJECTED ? Outcome.rejected(violations) : Outcome.failed(code);
    }
}
