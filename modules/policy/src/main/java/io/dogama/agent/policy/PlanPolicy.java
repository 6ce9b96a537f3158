package io.dogama.agent.policy;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.internal.PathRules;
import io.dogama.agent.policy.internal.SpecBuilder;
import io.dogama.agent.policy.internal.Validator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The validator of SPEC section 8 and the only place that decides what Docker is asked for. Two
 * phases, because the full plan is validated before anything is pulled:
 * <ol>
 * <li>{@link #validate(Plan, ValidationContext)}: every rule that needs no image (IDs, template,
 * image reference, command, entrypoint, capAdd, env, mounts with symlink-aware resolution, ports,
 * resources, labels, user, networks, a supplied digest);</li>
 * <li>the caller pulls or inspects {@link ValidatedPlan#imageReference()} and hands the engine's
 * answer to {@link #approve(ValidatedPlan, ImageFacts)}, which checks it is the pinned image and
 * builds the {@link ContainerSpec}.</li>
 * </ol>
 * All violations are reported, not just the first. When the ONLY violations are
 * {@code port_conflict} ones, the outcome is {@code port_conflict} (409, the plan itself is fine but
 * the host is not); otherwise it is {@code plan_rejected} with every violation, port conflicts
 * included. Thread-safe and immutable.
 */
public final class PlanPolicy {
    private final Validator validator;
    private final AdminConfig config;

    private PlanPolicy(AdminConfig config, Catalog catalog) {
        this.config = config;
        this.validator = new Validator(config, catalog);
    }

    /**
     * @param config  the administrator's configuration
     * @param catalog the embedded catalog
     * @return a policy
     */
    public static PlanPolicy create(AdminConfig config, Catalog catalog) {
        return new PlanPolicy(Objects.requireNonNull(config, "config"), Objects.requireNonNull(catalog, "catalog"));
    }

    /**
     * The template a plan names, before it is validated: what {@link #validate} will check the plan
     * against if the plan passes, so that work on the template's own facts (its image) can begin early.
     * Nothing about the plan is checked here.
     *
     * @param plan a parsed plan
     * @return the catalog's template of the plan's ID and version, if the catalog has it
     */
    public Optional<Template> template(Plan plan) {
        return validator.template(plan);
    }

    /**
     * Phase one on a parsed plan.
     *
     * @param plan    the plan
     * @param context ports Docker publishes and bindings of registered instances
     * @return the validated plan, {@code plan_rejected} with every violation, or {@code port_conflict}
     */
    public Outcome<ValidatedPlan> validate(Plan plan, ValidationContext context) {
        Validator.Result r = validator.validate(plan, context);
        if (!r.violations().isEmpty()) {
            return failure(r.violations());
        }
        return Outcome.ok(new ValidatedPlan(plan, r.template(), r.planDigest(), r.canonicalJson(), r.mounts(),
                r.ports()));
    }

    /**
     * Phase one on a raw plan body: {@link PlanParser#parse} then {@link #validate(Plan, ValidationContext)}.
     *
     * @param planJson the raw body
     * @param context  ports Docker publishes and bindings of registered instances
     * @return as {@link #validate(Plan, ValidationContext)}, or the parser's failure
     */
    public Outcome<ValidatedPlan> validate(byte[] planJson, ValidationContext context) {
        return switch (PlanParser.parse(planJson)) {
            case Outcome.Ok<Plan> ok -> validate(ok.value(), context);
            case Outcome.Failed<Plan> f -> f.cast();
        };
    }

    /**
     * Phase two: the image the template's reference resolved to must be the pinned one (its local
     * ID equals the template's {@code imageId}, and a repo digest of the same repository equals its
     * {@code manifestDigest}, whichever the template pins), else {@code image_substituted}; each of its
     * declared volumes must be a plan mount's target or a template tmpfs, else
     * {@code image_volume_uncovered}. When the
     * administrator forbids root and the plan has no user, the image's USER must be a numeric
     * non-zero UID, else {@code root_user_forbidden}. Then builds the container spec; its image is the
     * resolved image ID, so Docker runs exactly the image that was checked.
     *
     * @param plan  a plan from {@link #validate}
     * @param image what the engine reports for {@link ValidatedPlan#imageReference()}
     * @return the approved plan, or {@code plan_rejected}
     */
    public Outcome<ApprovedPlan> approve(ValidatedPlan plan, ImageFacts image) {
        List<Violation> v = validator.checkImage(plan.plan(), plan.template(), image);
        if (!v.isEmpty()) {
            return Outcome.rejected(v);
        }
        ContainerSpec spec = SpecBuilder.build(plan.plan(), plan.template(), plan.instanceId(), plan.planDigest(),
                image.imageId(), plan.mounts(), plan.publishedPorts());
        return Outcome.ok(new ApprovedPlan(plan, spec));
    }

    /**
     * The mount rules again, for use right before every start, restart and replace: every source
     * still exists, is a directory or regular file, resolves strictly below its allowed root, has
     * only safe ancestors ({@code unsafe_ancestor}) and overlaps neither another of its mounts nor a
     * source of another registered instance ({@code source_overlaps_mount},
     * {@code source_overlaps_instance}): the same rules, from the same code, as {@link #validate}.
     *
     * @param plan              the registered plan
     * @param registeredSources sources of the registered instances, as in
     *                          {@link ValidationContext#registeredSources()}
     * @return the mounts with sources resolved now, or {@code plan_rejected}
     */
    public Outcome<List<ContainerSpec.BindMount>> revalidateMounts(Plan plan,
            Map<String, List<String>> registeredSources) {
        Validator.Mounts m = validator.mounts(plan, registeredSources);
        return m.violations().isEmpty() ? Outcome.ok(m.mounts()) : Outcome.rejected(m.violations());
    }

    /**
     * As {@link #revalidateMounts(Plan, Map)}, and also each source must still resolve to the very
     * path the container was created with and that path must still be its own real path (no link was
     * inserted since), else {@code mount_changed}.
     *
     * @param plan              the registered plan
     * @param created           the mounts the container was created with ({@code spec().mounts()})
     * @param registeredSources sources of the registered instances, as in
     *                          {@link ValidationContext#registeredSources()}
     * @return {@code created}, or {@code plan_rejected}
     */
    public Outcome<List<ContainerSpec.BindMount>> revalidateMounts(Plan plan, List<ContainerSpec.BindMount> created,
            Map<String, List<String>> registeredSources) {
        Validator.Mounts m = validator.mounts(plan, registeredSources);
        List<Violation> v = new java.util.ArrayList<>(m.violations());
        if (v.isEmpty()) {
            v.addAll(validator.unchanged(m.mounts(), created));
        }
        return v.isEmpty() ? Outcome.ok(List.copyOf(created)) : Outcome.rejected(v);
    }

    /**
     * The check-disk rule (SPEC section 2): 1 to 16 absolute paths with no dot or empty segment,
     * each existing and, after resolving every symlink, at or below one of the allowed roots and
     * never the Docker socket's folder or the data directory. A path lexically outside every root
     * is {@code outside_allowed_root} without any file system call, so the answer never tells
     * whether it exists.
     *
     * @param paths the paths as sent
     * @return the resolved paths in request order, or {@code plan_rejected} ({@code paths[i]} fields)
     */
    public Outcome<List<Path>> checkPaths(List<String> paths) {
        PathRules.Checked c = validator.paths().checkDisk(paths);
        return c.violations().isEmpty() ? Outcome.ok(c.paths()) : Outcome.rejected(c.violations());
    }

    /** @return the configuration this policy enforces */
    public AdminConfig config() {
        return config;
    }

    private static <T> Outcome<T> failure(List<Violation> violations) {
        boolean onlyPorts = violations.stream().allMatch(x -> x.rule().equals(Rules.PORT_CONFLICT));
        return onlyPorts ? Outcome.failed(ProblemCode.PORT_CONFLICT) : Outcome.rejected(violations);
    }
}
