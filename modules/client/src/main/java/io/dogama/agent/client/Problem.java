package io.dogama.agent.client;

import java.util.List;
import java.util.Objects;

/**
 * An error answer of the agent: RFC 9457 problem JSON with a stable code (SPEC section 4). Switch on it:
 *
 * <pre>{@code
 * switch (e.problem()) {
 *     case Problem.PlanRejected r -> r.violations().forEach(v -> log(v.field() + ": " + v.rule()));
 *     case Problem.Known k when k.problemCode() == ProblemCode.REVISION_CONFLICT -> reload();
 *     case Problem.Known k -> fail(k.problemCode());
 *     case Problem.Unrecognized u -> fail(u.status());
 * }
 * }</pre>
 */
public sealed interface Problem permits Problem.PlanRejected, Problem.Known, Problem.Unrecognized {
    /** @return the HTTP status of the answer */
    int status();

    /** @return the wire code ({@code plan_rejected}, ...), or null when the answer carried none */
    String code();

    /**
     * {@code plan_rejected} (422): the plan breaks the policy.
     *
     * @param title      the agent's fixed title
     * @param violations every violation found (never empty)
     */
    record PlanRejected(String title, List<Violation> violations) implements Problem {
        /** @throws NullPointerException if a component is null */
        public PlanRejected {
            Objects.requireNonNull(title, "title");
            violations = List.copyOf(violations);
        }

        @Override
        public int status() {
            return ProblemCode.PLAN_REJECTED.status();
        }

        @Override
        public String code() {
            return ProblemCode.PLAN_REJECTED.wire();
        }
    }

    /**
     * Any other code of SPEC section 4.
     *
     * @param problemCode the code
     * @param status      the HTTP status
     * @param title       the agent's fixed title
     */
    record Known(ProblemCode problemCode, int status, String title) implements Problem {
        /** @throws NullPointerException if a component is null */
        public Known {
            Objects.requireNonNull(problemCode, "problemCode");
            Objects.requireNonNull(title, "title");
        }

        @Override
        public String code() {
            return problemCode.wire();
        }
    }

    /**
     * An error answer that is not problem JSON with a code this client knows: from a newer agent, or from
     * something between the client and the agent (a proxy).
     *
     * @param status the HTTP status
     * @param code   the code the answer named, or null
     * @param body   the first 512 characters of the body, for a log
     */
    record Unrecognized(int status, String code, String body) implements Problem {
        /** @throws NullPointerException if the body is null */
        public Unrecognized {
            Objects.requireNonNull(body, "body");
        }
    }
}
