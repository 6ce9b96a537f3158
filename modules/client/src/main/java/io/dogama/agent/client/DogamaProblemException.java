package io.dogama.agent.client;

import java.util.Objects;

/**
 * The agent answered with an error (SPEC section 4). For a mutation it is the agent's decision, but not always a
 * decision made before anything was done: {@code plan_rejected}, the conflicts (409), {@code unknown_instance} and
 * the authentication codes are refusals before any change; after {@code busy}, {@code docker_unavailable},
 * {@code internal_error} and {@code intervention_required} an engine call may have run (a stop whose registry write
 * found the disk full answers {@code busy}, an engine call that timed out {@code docker_unavailable}): inspect the
 * instance before acting again.
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
        super("client: " + method + " " + path + " answered " + problem.status() + " " + shown(problem.code()), null);
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** The code as the message shows it: a code of the agent's shape, never other text an answer carried. */
    private static String shown(String code) {
        if (code == null) {
            return "(no code)";
        }
        return CODE.matcher(code).matches() ? code : "(a code of another shape)";
    }

    private static final java.util.regex.Pattern CODE = java.util.regex.Pattern.compile("^[a-z_]{1,40}$");

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
