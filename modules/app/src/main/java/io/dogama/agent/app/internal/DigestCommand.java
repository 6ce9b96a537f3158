package io.dogama.agent.app.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.policy.PlanDigest;
import io.dogama.agent.policy.PlanParser;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code dogama-agent digest PLAN.json}: the plan digest of SPEC section 6 ({@code sha256:} + hex SHA-256 of
 * the plan without {@code planDigest} in RFC 8785 form), computed exactly as the agent computes it, for
 * control planes that pin it. Exit 0 with the digest; 1 with the problem JSON the API would answer when the
 * file is not a plan (closed schema); 2 on a usage error or an unreadable file.
 */
final class DigestCommand {
    private DigestCommand() {
    }

    static int run(Path plan, PrintStream out, PrintStream err) {
        byte[] body;
        try {
            body = OfflineProblem.readPlan(plan);
        } catch (OfflineProblem.Unreadable e) {
            err.println("digest: " + e.getMessage());
            return ValidateCommand.USAGE;
        }
        return switch (PlanParser.parse(body)) {
            case Outcome.Ok<Plan> ok -> {
                out.println(PlanDigest.of(ok.value()));
                yield ValidateCommand.VALID;
            }
            case Outcome.Failed<Plan> f -> {
                out.println(OfflineProblem.json(f.code(), f.violations()));
                yield ValidateCommand.REFUSED;
            }
        };
    }
}
