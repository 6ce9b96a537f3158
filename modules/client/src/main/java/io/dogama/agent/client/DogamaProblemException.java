package io.dogama.agent.client;

import java.util.Objects;

/**
 * The agent answered with an error (SPEC section 4). For a mutation, the agent decided it: nothing was
 * changed unless the problem says otherwise ({@code intervention_required}, {@code internal_error}).
 */
public final class DogamaProblemException extends DogamaClientException {
    private static final long serialVersionUID = 1L;

    /** The problem; records are serializable only if their components are, hence transient. */
    private final transient Problem problem;

    /**
     * @param method the request's method
     * @param path   the request's path
     * @param problem the agent's answer
     */
    public DogamaProblemException(String method, String path, Problem problem) {
        super("client: " + method + " " + path + " answered " + problem.status() + " "
                + (problem.code() == null ? "(no code)" : problem.code()), null);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** @return the agent's answer */
    public Problem problem() {
        return problem;
    }

    /** @return the code, or null when the answer carried none this client knows */
    public ProblemCode code() {
        return switch (problem) {
            case Problem.PlanRejected _ -> ProblemCode.PLAN_REJECTED;
            case Problem.Known k -> k.problemCode();
            case Problem.Unrecognized _ -> null;
        };
    }
}
