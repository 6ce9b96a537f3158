package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.InstanceId;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerNotFoundException;
import io.dogama.agent.docker.HostConfigView;
import io.dogama.agent.docker.ImageInfo;
import io.dogama.agent.lifecycle.InstanceSummary;
import io.dogama.agent.lifecycle.InstanceView;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.ImageFacts;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.Template;
import io.dogama.agent.policy.ValidatedPlan;
import io.dogama.agent.policy.ValidationContext;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import io.dogama.agent.registry.RegistryException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What every operation family shares: the engine, the registry, the policy, the fault seam, and
 * the checks they all make the same way (identity, validation context, image resolution, mount
 * re-validation, views).
 */
final class Env {
    /** Rule name: the plan's instanceId differs from the instance in the path (replace). */
    static final String RULE_INSTANCE_MISMATCH = "instance_mismatch";
    /** Rule name: the template's image is neither local nor pullable by its pinned digest. */
    static final String RULE_IMAGE_UNAVAILABLE = "image_unavailable";
    /** Status of an instance whose registered container does not exist. */
    static final String STATUS_MISSING = "missing";

    private static final System.Logger LOG = System.getLogger(Env.class.getName());

    final DockerEngine docker;
    final Registry registry;
    final PlanPolicy policy;
    final Faults faults;

    Env(DockerEngine docker, Registry registry, PlanPolicy policy, Faults faults) {
        this.docker = docker;
        this.registry = registry;
        this.policy = policy;
        this.faults = faults;
    }

    // ---------------------------------------------------------------- identity

    /**
     * Who a container must be: the instance, the plan it was made from, and the names it may carry.
     *
     * @param instanceId      instance ID
     * @param templateId      template ID of the plan
     * @param templateVersion template version of the plan
     * @param planDigest      digest of the plan
     * @param names           acceptable names
     */
    record Expect(String instanceId, String templateId, String templateVersion, String planDigest,
            Set<String> names) {
        static Expect current(InstanceRecord r) {
            return new Expect(r.instanceId(), r.templateId(), r.templateVersion(), r.planDigest(),
                    Set.of(r.containerName()));
        }

        static Expect prior(InstanceRecord r, InstanceRecord.Prior p) {
            return new Expect(r.instanceId(), p.templateId(), p.templateVersion(), p.planDigest(),
                    Set.of(new InstanceId(r.instanceId()).containerName(), p.containerName()));
        }

        boolean labelsMatch(Map<String, String> labels) {
            return "true".equals(labels.get(Labels.MANAGED)) && instanceId.equals(labels.get(Labels.INSTANCE_ID))
                    && templateId.equals(labels.get(Labels.TEMPLATE_ID))
                    && templateVersion.equals(labels.get(Labels.TEMPLATE_VERSION))
                    && planDigest.equals(labels.get(Labels.PLAN_DIGEST));
        }
    }

    /** The answer of an identity check. */
    sealed interface Identity permits Match, Missing, Mismatch {
    }

    /**
     * The container exists under the registered ID and is who it must be.
     *
     * @param info what the engine reported
     */
    record Match(ContainerInfo info) implements Identity {
    }

    /** No container under the registered ID (or none registered yet). */
    record Missing() implements Identity {
    }

    /** A container exists under the registered ID but its name or labels disagree: never touched. */
    record Mismatch() implements Identity {
    }

    /**
     * Inspects BY THE REGISTERED ID, never by name, and compares ID, name and every technical label.
     *
     * @param containerId the registered container ID, if any
     * @param expect      who it must be
     * @return the answer
     * @throws DockerException on an engine failure
     */
    Identity identify(Optional<String> containerId, Expect expect) throws DockerException {
        if (containerId.isEmpty()) {
            return new Missing();
        }
        Optional<ContainerInfo> info = docker.inspectContainer(containerId.get());
        if (info.isEmpty()) {
            return new Missing();
        }
        ContainerInfo c = info.get();
        boolean same = c.id().equals(containerId.get()) && expect.names().contains(c.name())
                && expect.labelsMatch(c.labels());
        return same ? new Match(c) : new Mismatch();
    }

    /**
     * The identity check before a mutation of the current container.
     *
     * @param r the record
     * @return the container
     * @throws Abort          {@code identity_mismatch} when it is missing or not ours
     * @throws DockerException on an engine failure
     */
    ContainerInfo requireCurrent(InstanceRecord r) throws Abort, DockerException {
        if (identify(r.containerId(), Expect.current(r)) instanceof Match m) {
            return m.info();
        }
        throw new Abort(ProblemCode.IDENTITY_MISMATCH);
    }

    /**
     * The containers a crash (or an engine call whose answer was lost) may have left between creating
     * a container and recording its ID: named {@code dogama-X}, labelled as instance X made from
     * exactly this plan digest, and not one the record already names. Only ever asked while the
     * record says such a create was under way.
     *
     * @param instanceId the instance
     * @param planDigest the digest of the plan the container was being created from
     * @param exclude    IDs the record names (never removed by this rule)
     * @return their IDs
     * @throws DockerException on an engine failure
     */
    List<String> unrecorded(String instanceId, String planDigest, Collection<String> exclude)
            throws DockerException {
        String name = new InstanceId(instanceId).containerName();
        List<String> out = new ArrayList<>();
        for (ContainerSummary c : docker.listContainersByLabel(Labels.INSTANCE_ID, instanceId)) {
            Map<String, String> l = c.labels();
            if (c.names().contains(name) && "true".equals(l.get(Labels.MANAGED))
                    && instanceId.equals(l.get(Labels.INSTANCE_ID)) && planDigest.equals(l.get(Labels.PLAN_DIGEST))
                    && !exclude.contains(c.id())) {
                out.add(c.id());
            }
        }
        return out;
    }

    /**
     * Removes a container; one already gone is fine.
     *
     * @param id container ID
     * @throws DockerException on any other failure
     */
    void removeIfPresent(String id) throws DockerException {
        try {
            docker.removeContainer(id);
        } catch (DockerNotFoundException gone) {
            LOG.log(System.Logger.Level.DEBUG, "lifecycle: container to remove was already gone");
        }
    }

    // ---------------------------------------------------------------- validation

    /**
     * @param canonicalPlan a registered canonical plan
     * @return the plan
     * @throws Abort {@code internal_error} if a registered plan no longer parses (it did when stored)
     */
    static Plan parseRegistered(String canonicalPlan) throws Abort {
        return switch (PlanParser.parse(canonicalPlan.getBytes(StandardCharsets.UTF_8))) {
            case Outcome.Ok<Plan> ok -> ok.value();
            case Outcome.Failed<Plan> f -> throw new Abort(ProblemCode.INTERNAL_ERROR);
        };
    }

    /** @return the host bindings a registered plan publishes (none if it does not parse) */
    static List<HostPort> bindings(String canonicalPlan) {
        if (!(PlanParser.parse(canonicalPlan.getBytes(StandardCharsets.UTF_8)) instanceof Outcome.Ok<Plan> ok)) {
            return List.of();
        }
        List<HostPort> out = new ArrayList<>();
        for (Plan.Port p : ok.value().ports()) {
            Optional<Protocol> proto = Protocol.parse(p.protocol());
            if (proto.isPresent() && p.hostPort() >= 1 && p.hostPort() <= 65535) {
                out.add(new HostPort(p.hostIp(), (int) p.hostPort(), proto.get()));
            }
        }
        return out;
    }

    /** @return the bind sources a registered plan names, as stated in it (none if it does not parse) */
    static List<String> sources(String canonicalPlan) {
        if (!(PlanParser.parse(canonicalPlan.getBytes(StandardCharsets.UTF_8)) instanceof Outcome.Ok<Plan> ok)) {
            return List.of();
        }
        return ok.value().mounts().stream().map(Plan.Mount::source).toList();
    }

    /**
     * The bind sources of every registered instance, current and, mid-replace, prior plan (SPEC 8.3,
     * 1.1): fed to the validator's overlap rule at validation and before every start.
     *
     * @return sources by instance ID
     * @throws RegistryException if the registry failed
     */
    Map<String, List<String>> registeredSources() throws RegistryException {
        Map<String, List<String>> out = new HashMap<>();
        for (Lookup l : registry.all()) {
            if (l instanceof Lookup.Found f) {
                List<String> s = new ArrayList<>(sources(f.record().canonicalPlan()));
                f.record().prior().ifPresent(p -> s.addAll(sources(p.canonicalPlan())));
                out.put(f.record().instanceId(), s);
            }
        }
        return out;
    }

    /**
     * Port and source facts for the validator: what Docker publishes, minus what the instance's own
     * running containers publish (SPEC 8.4: during a replace its own bindings do not count), and the
     * bindings and bind sources of every registered instance (current and, mid-replace, prior plan).
     *
     * @param own container IDs of the instance itself
     * @return the context
     * @throws DockerException   on an engine failure
     * @throws RegistryException if the registry failed
     */
    ValidationContext context(Collection<String> own) throws DockerException, RegistryException {
        Set<HostPort> published = new HashSet<>(docker.publishedHostPorts());
        for (String id : own) {
            Optional<ContainerInfo> c = docker.inspectContainer(id);
            if (c.isPresent() && c.get().state().running()) {
                for (HostConfigView.PortBindingView b : c.get().hostConfig().portBindings()) {
                    published.removeIf(p -> sameBinding(p, b.host()));
                }
            }
        }
        Map<String, List<HostPort>> registered = new HashMap<>();
        for (Lookup l : registry.all()) {
            if (l instanceof Lookup.Found f) {
                List<HostPort> b = new ArrayList<>(bindings(f.record().canonicalPlan()));
                f.record().prior().ifPresent(p -> b.addAll(bindings(p.canonicalPlan())));
                registered.put(f.record().instanceId(), b);
            }
        }
        return new ValidationContext(published, registered, registeredSources());
    }

    /** The engine may report an unset or wildcard address either way; both mean "all addresses". */
    private static boolean sameBinding(HostPort published, HostPort own) {
        if (published.hostPort() != own.hostPort() || published.protocol() != own.protocol()) {
            return false;
        }
        return published.hostIp().equals(own.hostIp()) || (wildcard(published.hostIp()) && wildcard(own.hostIp()));
    }

    private static boolean wildcard(String ip) {
        return ip.isEmpty() || "0.0.0.0".equals(ip) || "::".equals(ip);
    }

    /**
     * Full validation (phase one), then the image is resolved and checked (phase two). Nothing is
     * mutated here except, when the template pins a manifest digest and the image is not local, a
     * pull by that digest.
     *
     * @param plan        the parsed plan
     * @param own         the instance's own container IDs (their ports do not count)
     * @param fieldPrefix prefix of violation fields ({@code "plan."} for a replace)
     * @return the approved plan
     * @throws Abort             {@code plan_rejected} or {@code port_conflict}
     * @throws DockerException   on an engine failure
     * @throws RegistryException if the registry failed
     */
    ApprovedPlan approve(Plan plan, Collection<String> own, String fieldPrefix)
            throws Abort, DockerException, RegistryException {
        ValidatedPlan v = switch (policy.validate(plan, context(own))) {
            case Outcome.Ok<ValidatedPlan> ok -> ok.value();
            case Outcome.Failed<ValidatedPlan> f -> throw Abort.of(prefixed(f, fieldPrefix));
        };
        ImageFacts facts = image(v.template());
        return switch (policy.approve(v, facts)) {
            case Outcome.Ok<ApprovedPlan> ok -> ok.value();
            case Outcome.Failed<ApprovedPlan> f -> throw Abort.of(prefixed(f, fieldPrefix));
        };
    }

    private static Outcome.Failed<?> prefixed(Outcome.Failed<?> f, String prefix) {
        if (prefix.isEmpty() || f.violations().isEmpty()) {
            return f;
        }
        List<Violation> v = f.violations().stream().map(x -> new Violation(prefix + x.field(), x.rule())).toList();
        return new Outcome.Failed<>(f.code(), v);
    }

    /**
     * The image the template names: local by reference, else local by its pinned ID, else pulled
     * by its pinned manifest digest (content-addressed, so nothing else can arrive).
     */
    private ImageFacts image(Template t) throws Abort, DockerException {
        Optional<ImageInfo> info = docker.inspectImage(t.image());
        if (info.isEmpty() && t.imageId().isPresent()) {
            info = docker.inspectImage(t.imageId().get());
        }
        if (info.isEmpty() && t.manifestDigest().isPresent()) {
            String ref = repository(t.image()) + "@" + t.manifestDigest().get();
            try {
                docker.pullImage(ref);
            } catch (DockerNotFoundException e) {
                throw Abort.rejected("image", RULE_IMAGE_UNAVAILABLE);
            }
            info = docker.inspectImage(ref);
        }
        if (info.isEmpty()) {
            throw Abort.rejected("image", RULE_IMAGE_UNAVAILABLE);
        }
        return new ImageFacts(info.get().id(), info.get().repoDigests(), info.get().user());
    }

    /** @return the reference without its tag and digest */
    static String repository(String image) {
        String s = image;
        int at = s.indexOf('@');
        if (at >= 0) {
            s = s.substring(0, at);
        }
        int colon = s.lastIndexOf(':');
        if (colon > s.lastIndexOf('/')) {
            s = s.substring(0, colon);
        }
        return s;
    }

    /**
     * SPEC 8.3: bind sources are checked again before every start and restart, against the very
     * mounts the container was created with, with every mount rule of a validation (ancestors,
     * overlaps with the other registered instances included).
     *
     * @param canonicalPlan the plan the container was made from
     * @param container     the container as inspected
     * @throws Abort             {@code plan_rejected} ({@code mount_changed}, {@code not_found},
     *                           {@code unsafe_ancestor}, {@code source_overlaps_instance}, ...)
     * @throws RegistryException if the registry failed
     */
    void revalidateMounts(String canonicalPlan, ContainerInfo container) throws Abort, RegistryException {
        List<ContainerSpec.BindMount> created = new ArrayList<>();
        for (HostConfigView.MountView m : container.hostConfig().mounts()) {
            if ("bind".equals(m.type())) {
                created.add(new ContainerSpec.BindMount(m.source(), m.target(), m.readOnly()));
            }
        }
        if (policy.revalidateMounts(parseRegistered(canonicalPlan), created, registeredSources())
                instanceof Outcome.Failed<?> f) {
            throw Abort.of(f);
        }
    }

    // ---------------------------------------------------------------- records and views

    /**
     * @param a          the approved plan
     * @param state      state
     * @param revision   API revision
     * @param container  container ID, if known
     * @param prior      the prior, during a replace
     * @param step       the step marker
     * @return the record for it
     */
    static InstanceRecord record(ApprovedPlan a, InstanceState state, long revision,
            Optional<String> container, Optional<InstanceRecord.Prior> prior, Optional<Step> step) {
        return new InstanceRecord(a.instanceId().value(), container, a.instanceId().containerName(),
                a.template().id(), a.template().version(), a.planDigest(),
                new String(a.canonicalJson(), StandardCharsets.UTF_8), state, revision, prior,
                step.map(Step::marker));
    }

    static InstanceSummary summary(InstanceRecord r) {
        return new InstanceSummary(r.instanceId(), r.templateId(), r.templateVersion(), r.planDigest(), r.revision(),
                r.state());
    }

    /**
     * @param r the record
     * @return the instance as the API shows it; the container as inspected by its registered ID
     * @throws Abort          {@code identity_mismatch} if a container under that ID is not ours
     * @throws DockerException on an engine failure
     */
    InstanceView view(InstanceRecord r) throws Abort, DockerException {
        return switch (identify(r.containerId(), Expect.current(r))) {
            case Match m -> new InstanceView(summary(r), new InstanceView.ContainerView(m.info().state().status(),
                    m.info().state().startedAt(), m.info().state().exitCode()));
            case Missing x -> new InstanceView(summary(r),
                    new InstanceView.ContainerView(STATUS_MISSING, Optional.empty(), Optional.empty()));
            case Mismatch x -> throw new Abort(ProblemCode.IDENTITY_MISMATCH);
        };
    }
}
