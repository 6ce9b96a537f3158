package io.dogama.agent.app.internal;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.ValidatedPlan;
import io.dogama.agent.policy.ValidationContext;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code dogama-agent validate --config FILE PLAN.json}: the validation of {@code POST /v1/instances} that
 * needs no Docker engine, offline, with the administrator's config and the embedded catalog: the closed
 * schema, the catalog, every field rule, the path rules against this machine's file system (the allowed
 * roots must exist here), labels, users, networks, and ports against the config's addresses and range.
 *
 * <p>Not checked offline (the agent checks them when the plan is sent): the image the reference resolves
 * to ({@code image_substituted}), its USER when the plan omits {@code user} and its VOLUMEs
 * ({@code image_volume_uncovered}); ports Docker already
 * publishes and other registered instances' bindings ({@code port_conflict}); other registered
 * instances' mount sources ({@code source_overlaps_instance}).
 *
 * <p>Exit 0 and {@code valid <planDigest>} on standard output when the plan passes; exit 1 and the problem
 * JSON the API would answer (e.g. 422 {@code plan_rejected} with every violation) when it does not; exit 2
 * on a usage error or an unreadable or invalid config or plan file.
 */
final class ValidateCommand {
    static final int VALID = 0;
    static final int REFUSED = 1;
    static final int USAGE = 2;
    static final String NOT_CHECKED = "validate: not checked offline: the image digest (image_substituted), the "
            + "image's USER and VOLUMEs (image_volume_uncovered), ports Docker publishes and other instances' "
            + "bindings (port_conflict), other "
            + "instances' mount sources (source_overlaps_instance), the engine's CPUs (over_engine_cpus)";

    private ValidateCommand() {
    }

    static int run(Path config, Path plan, PrintStream out, PrintStream err) {
        AdminConfig admin;
        try {
            admin = AgentProcess.readConfig(config);
        } catch (StartupException e) {
            err.println("validate: " + e.getMessage());
            return USAGE;
        }
        Catalog catalog;
        try {
            catalog = Catalog.embedded();
        } catch (PolicyException e) {
            err.println("validate: the embedded catalog is invalid: " + e.getMessage());
            return USAGE;
        }
        byte[] body;
        try {
            body = OfflineProblem.readPlan(plan);
        } catch (OfflineProblem.Unreadable e) {
            err.println("validate: " + e.getMessage());
            return USAGE;
        }
        Outcome<ValidatedPlan> outcome = PlanPolicy.create(admin, catalog).validate(body, ValidationContext.EMPTY);
        err.println(NOT_CHECKED);
        return switch (outcome) {
            case Outcome.Ok<ValidatedPlan> ok -> {
                out.println("valid " + ok.value().planDigest());
                yield VALID;
            }
            case Outcome.Failed<ValidatedPlan> f -> {
                out.println(OfflineProblem.json(f.code(), f.violations()));
                yield REFUSED;
            }
        };
    }
}
