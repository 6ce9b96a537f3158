package io.dogama.agent.core;

import java.util.List;
import java.util.Objects;

/**
 * The result of an operation whose failures are expected and typed: a value, or a problem code
 * (with the plan violations for {@link ProblemCode#PLAN_REJECTED}).
 *
 * @param <T> the value type
 */
public sealed interface Outcome<T> permits Outcome.Ok, Outcome.Failed {

    /**
     * @param value the value
     * @param <T>   its type
     * @return a success
     */
    static <T> Outcome<T> ok(T value) {
        return new Ok<>(value);
    }

    /**
     * @param code the problem
     * @param <T>  the value type the caller expected
     * @return a failure without violations
     */
    static <T> Outcome<T> failed(ProblemCode code) {
        return new Failed<>(code, List.of());
    }

    /**
     * @param violations every violation found, at least one
     * @param <T>        the value type the caller expected
     * @return a {@code plan_rejected} failure
     */
    static <T> Outcome<T> rejected(List<Violation> violations) {
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("core: a rejection needs a violation");
        }
        return new Failed<>(ProblemCode.PLAN_REJECTED, violations);
    }

    /**
     * A success.
     *
     * @param value the value
     * @param <T>   its type
     */
    record Ok<T>(T value) implements Outcome<T> {
        /** Rejects null. */
        public Ok {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * A typed failure.
     *
     * @param code       the problem code
     * @param violations the plan violations, empty unless the code is {@code plan_rejected}
     * @param <T>        the value type the caller expected
     */
    record Failed<T>(ProblemCode code, List<Violation> violations) implements Outcome<T> {
        /** Copies the violations. */
        public Failed {
            Objects.requireNonNull(code, "code");
            violations = List.copyOf(violations);
        }

        /**
         * Re-types a failure for a caller that expected another value type.
         *
         * @param <U> the new value type
         * @return the same failure
         */
        public <U> Outcome<U> cast() {
            return new Failed<>(code, violations);
        }
    }
}
