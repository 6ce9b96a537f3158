package io.dogama.agent.lifecycle.internal;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.IpLiteral;
import io.dogama.agent.core.Ids;
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
import io.dogama.agent.docker.NetworkInfo;
import io.dogama.agent.policy.ApprovedPlan;
import io.dogama.agent.policy.ImageFacts;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PlanPolicy;
import io.dogama.agent.policy.Template;
import io.dogama.agent.policy.ValidatedPlan;
import io.dogama.agent.policy.ValidationContext;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Validation (phase one, with the facts of the engine and the registry) and image resolution
 * (phase two) of a plan, and what registered plans say (their bindings and bind sources).
 */
final class Approvals {
    /** Rule name: the plan's instanceId differs from the instance in the path (replace). */
    static final String RULE_INSTANCE_MISMATCH = "instance_mismatch";
    /** Rule name: the template's image is neither local nor pullable by its pinned digest. */
    static final String RULE_IMAGE_UNAVAILABLE = "image_unavailable";

    /**
     * Listings of the running containers at once: one. A listing names every container on the host, the
     * agent's own and anyone else's, with all their labels: up to the engine client's listing limit
     * (64 MiB), read as it arrives for the ports alone, but an engine thread and a connection for as long as
     * it takes. Requests that need one at the same time share it ({@link SharedCall}), so concurrent creates
     * and port checks cannot crowd out the engine or the agent's other calls.
     */
    static final int PORT_LISTINGS = 1;

    private final DockerEngine docker;
    private final Registry registry;
    private final PlanPolicy policy;
    private final SharedCall<Set<HostPort>> published;
    /** Held while a plan's record is written, and checked against the others first if need be: {@link #register}. */
    private final Object registrations = new Object();
    /** The engine's CPUs as a CPU quota, 0 until asked: {@link #engineNanoCpus()}. */
    private volatile long engineNanoCpus;
    /** Registrations written (or tried) so far: {@link #register}. */
    private final AtomicLong registered = new AtomicLong();

    Approvals(DockerEngine docker, Registry registry, PlanPolicy policy) {
        this.docker = docker;
        this.registry = registry;
        this.policy = policy;
        this.published = new SharedCall<>("dogama-port-listing-", PORT_LISTINGS,
                () -> Set.copyOf(docker.publishedHostPorts()));
    }

    /**
     * @return the host ports running containers publish, from a listing that began after this call
     * @throws DockerException on an engine failure
     */
    Set<HostPort> publishedHostPorts() throws DockerException {
        return published.get();
    }

    /** @return requests waiting for the next listing, for tests */
    int listingsWaiting() {
        return published.waitingForNext();
    }


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

    /**
     * What registered plans claim: by instance ID, the host bindings they publish and the bind sources they name
     * (current and, mid-replace, prior plan).
     *
     * @param bindings host bindings by instance ID
     * @param sources  bind sources by instance ID, as stated in the plans
     */
    record Claims(Map<String, List<HostPort>> bindings, Map<String, List<String>> sources) {
    }

    /**
     * The claims of every registered instance, from one read of the registry, each plan parsed once (SPEC 8.3
     * and 8.4, 1.1): fed to the validator's overlap and port rules at validation, at a registration, and (the
     * sources) before every start. An instance whose record cannot be read (it fails its MAC: {@link
     * Lookup.Tampered}; or its plan, authentic, no longer parses) is never acted on, but its container may still
     * run with its mounts and hold its ports: so it claims what its containers hold, as the engine shows them
     * (every container labelled with its ID, running or not: their bind mounts' sources and their port
     * bindings). Claiming nothing would let another plan take its sources and ports (fail open); refusing every
     * plan while one record is unreadable would stop the agent for one damaged entry. A key that is not a valid
     * instance ID (forged with the file itself) names no container the agent made, and claims nothing.
     *
     * @return the claims
     * @throws DockerException   if the engine failed while the claims of an unreadable record were looked up
     * @throws RegistryException if the registry failed
     */
    Claims registered() throws DockerException, RegistryException {
        Map<String, List<HostPort>> bindings = new HashMap<>();
        Map<String, List<String>> sources = new HashMap<>();
        for (Lookup l : registry.all()) {
            List<HostPort> b = new ArrayList<>();
            List<String> s = new ArrayList<>();
            boolean readable = switch (l) {
                case Lookup.Found f -> claims(f.record().canonicalPlan(), b, s)
                        & f.record().prior().map(p -> claims(p.canonicalPlan(), b, s)).orElse(true);
                case Lookup.Tampered t -> false;
                case Lookup.Absent a -> true;
            };
            if (!readable && Ids.isId(l.instanceId())) {
                claimsOfContainers(l.instanceId(), b, s);
            }
            bindings.put(l.instanceId(), b);
            sources.put(l.instanceId(), s);
        }
        return new Claims(bindings, sources);
    }

    /**
     * Adds the host bindings a registered plan publishes and the bind sources it names.
     *
     * @return false if the plan does not parse (then nothing is added)
     */
    private static boolean claims(String canonicalPlan, List<HostPort> bindings, List<String> sources) {
        if (!(PlanParser.parse(canonicalPlan.getBytes(StandardCharsets.UTF_8)) instanceof Outcome.Ok<Plan> ok)) {
            return false;
        }
        for (Plan.Port p : ok.value().ports()) {
            Optional<Protocol> proto = Protocol.parse(p.protocol());
            if (proto.isPresent() && p.hostPort() >= 1 && p.hostPort() <= 65535) {
                bindings.add(new HostPort(p.hostIp(), (int) p.hostPort(), proto.get()));
            }
        }
        ok.value().mounts().forEach(m -> sources.add(m.source()));
        return true;
    }

    /** Adds what the containers labelled with {@code instanceId} hold: their bind sources and host bindings. */
    private void claimsOfContainers(String instanceId, List<HostPort> bindings, List<String> sources)
            throws DockerException {
        for (ContainerSummary c : docker.listContainersByLabel(Labels.INSTANCE_ID, instanceId)) {
            Optional<ContainerInfo> info = docker.inspectContainer(c.id());
            if (info.isEmpty()) {
                continue; // removed since the listing: it holds nothing any more
            }
            for (HostConfigView.MountView m : info.get().hostConfig().mounts()) {
                if ("bind".equals(m.type())) {
                    sources.add(m.source());
                }
            }
            for (HostConfigView.PortBindingView p : info.get().hostConfig().portBindings()) {
                bindings.add(p.host());
            }
        }
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
        Set<HostPort> published = new HashSet<>(publishedHostPorts());
        for (String id : own) {
            Optional<ContainerInfo> c = docker.inspectContainer(id);
            if (c.isPresent() && c.get().state().running()) {
                for (HostConfigView.PortBindingView b : c.get().hostConfig().portBindings()) {
                    published.removeIf(p -> sameBinding(p, b.host()));
                }
            }
        }
        Claims claims = registered();
        return new ValidationContext(published, claims.bindings(), claims.sources(), engineNanoCpus());
    }

    /** @return the largest CPU quota the engine takes, asked once ({@code GET /info}) and then remembered */
    private long engineNanoCpus() throws DockerException {
        long known = engineNanoCpus;
        if (known == 0) {
            // Two first approvals may both ask: the same answer, written twice.
            known = docker.info().maxNanoCpus();
            engineNanoCpus = known;
        }
        return known;
    }

    /** The registry write a registration makes, run by {@link #register} under its lock. */
    @FunctionalInterface
    interface Registration {
        void write() throws Abort, RegistryException;
    }

    /**
     * Writes the record that makes {@code plan}'s bind sources and host ports count against every other
     * instance (a create's intent, a replace's). The approval read the other registered plans before its
     * image look-up, which may have pulled for minutes: two requests for different instances could each
     * have passed it before the other was written. So the write is made under one lock, and when another
     * registration was written since the approval read the registry, the plan is validated again first: of
     * two such plans the one written second is refused, as its validation would refuse it now. (The ports
     * the engine publishes were checked by the approval and are not listed again.) Only registrations add
     * claims; removals and commits free them, so a count of registrations tells whether a check is stale.
     * The lock is held for the write alone, and for a validation only when registrations overlapped.
     *
     * @param approved the plan's approval
     * @param write    the registry write that registers it
     * @throws Abort             {@code plan_rejected} or {@code port_conflict}, or the write's own
     * @throws DockerException   if the engine failed while an unreadable record's claims were looked up
     * @throws RegistryException if the registry failed
     */
    void register(Approved approved, Registration write) throws Abort, DockerException, RegistryException {
        synchronized (registrations) {
            if (registered.get() != approved.registrationsSeen()) {
                Claims claims = registered();
                ValidationContext now = new ValidationContext(Set.of(), claims.bindings(), claims.sources());
                if (policy.validate(approved.plan().plan(), now) instanceof Outcome.Failed<ValidatedPlan> f) {
                    throw Abort.of(prefixed(f, approved.fieldPrefix()));
                }
            }
            try {
                write.write();
            } finally {
                // A failed write may have gone through all the same: later checks assume it did.
                registered.incrementAndGet();
            }
        }
    }

    /** The engine may report an unset or wildcard address either way; both mean "all addresses". */
    private static boolean sameBinding(HostPort published, HostPort own) {
        if (published.hostPort() != own.hostPort() || published.protocol() != own.protocol()) {
            return false;
        }
        return published.hostIp().equals(own.hostIp())
                || (IpLiteral.isWildcard(published.hostIp()) && IpLiteral.isWildcard(own.hostIp()));
    }

    /**
     * Full validation (phase one), then the image is resolved and checked (phase two). Nothing is
     * mutated here except, when the template pins a manifest digest and the image is not local, a
     * pull by that digest.
     *
     * @param plan        the parsed plan
     * @param own         the instance's own container IDs (their ports do not count)
     * @param fieldPrefix prefix of violation fields ({@code "plan."} for a replace)
     * @return the approval
     * @throws Abort             {@code plan_rejected} or {@code port_conflict}
     * @throws DockerException   on an engine failure
     * @throws RegistryException if the registry failed
     */
    Approved approve(Plan plan, Collection<String> own, String fieldPrefix)
            throws Abort, DockerException, RegistryException {
        return approve(plan, own, fieldPrefix, false);
    }

    /**
     * A create's approval: as {@link #approve(Plan, Collection, String)} for a new instance, with the
     * plan's networks looked up beside the port listing and the image look-up, for the create that
     * follows right after.
     *
     * @param plan the parsed plan
     * @return the approved plan and its networks
     * @throws Abort             {@code plan_rejected} or {@code port_conflict}
     * @throws DockerException   on an engine failure
     * @throws RegistryException if the registry failed
     */
    Approved approveCreate(Plan plan) throws Abort, DockerException, RegistryException {
        return approve(plan, List.of(), "", true);
    }

    /**
     * A create's room in the registry, asked once the plan is valid and before its image is resolved: a full
     * registry refuses the intent's insert anyway, and a pull it would make first (minutes, and repeated at every
     * retry of a {@code busy}) was for nothing. The insert stays the rule; this only spares the engine's work.
     */
    private void requireRoom() throws Abort, RegistryException {
        if (registry.all().size() >= registry.maxInstances()) {
            throw new Abort(ProblemCode.BUSY);
        }
    }

    /**
     * An approved plan and the look-up of its networks.
     *
     * @param plan              the approved plan
     * @param networks          its networks, as looked up during the approval (or to be looked up at the create)
     * @param registrationsSeen registrations written before the approval read the registry ({@link #register})
     * @param fieldPrefix       prefix of its violation fields ({@code "plan."} for a replace)
     */
    record Approved(ApprovedPlan plan, Networks networks, long registrationsSeen, String fieldPrefix) {
    }

    private Approved approve(Plan plan, Collection<String> own, String fieldPrefix, boolean create)
            throws Abort, DockerException, RegistryException {
        // The image look-up needs neither the engine's ports nor the validation: it runs beside them. Only
        // the catalog's own reference is looked up, never one the request states, and its answer is used
        // only for the template the validation then picks. Nothing is pulled before a plan is valid.
        EarlyImage early = policy.template(plan).map(t -> new EarlyImage(docker, t)).orElse(null);
        // So do a create's networks, when every one the plan names is a network the configuration
        // approves (else the validation refuses the plan): a name the request states alone is never
        // looked up.
        Networks networks = create && approvedNetworks(plan.networks())
                ? Networks.lookUp(docker, plan.networks()) : Networks.LATER;
        try {
            long seen = registered.get(); // before the registry is read: see register
            ValidatedPlan v = switch (policy.validate(plan, context(own))) {
                case Outcome.Ok<ValidatedPlan> ok -> ok.value();
                case Outcome.Failed<ValidatedPlan> f -> throw Abort.of(prefixed(f, fieldPrefix));
            };
            if (create) {
                requireRoom();
            }
            ImageResolution image = image(v.template(), early);
            // A pull may have taken minutes: the networks are then looked up again, right before the create.
            Networks found = image.pulled() ? Networks.LATER : networks;
            return switch (policy.approve(v, image.facts())) {
                case Outcome.Ok<ApprovedPlan> ok -> new Approved(ok.value(), found, seen, fieldPrefix);
                case Outcome.Failed<ApprovedPlan> f -> throw Abort.of(prefixed(f, fieldPrefix));
            };
        } finally {
            // Every engine call a request makes has ended before it is answered, used or not.
            if (early != null) {
                early.settle();
            }
            networks.settle();
        }
    }

    /** @return true if {@code names} are distinct networks the configuration approves */
    private boolean approvedNetworks(List<String> names) {
        List<String> approved = policy.config().networks();
        return !names.isEmpty() && names.size() <= approved.size() && Set.copyOf(names).size() == names.size()
                && approved.containsAll(names);
    }

    /**
     * A create's networks: looked up ({@link DockerEngine#lookUpNetworks}) on a virtual thread of their own
     * while the approval runs, or not yet ({@link #LATER}).
     */
    static final class Networks {
        /** Not looked up: {@link #resolve} looks them up when asked. */
        static final Networks LATER = new Networks(List.of(), null);

        private final List<String> names;
        /** Null for {@link #LATER}. */
        private final EarlyCall<List<NetworkInfo>> lookUp;

        private Networks(List<String> names, EarlyCall<List<NetworkInfo>> lookUp) {
            this.names = names;
            this.lookUp = lookUp;
        }

        /** Starts the look-up of {@code names}. */
        static Networks lookUp(DockerEngine docker, List<String> names) {
            List<String> n = List.copyOf(names);
            return new Networks(n, EarlyCall.start("dogama-network-lookup", () -> docker.lookUpNetworks(n)));
        }

        /**
         * @param docker the engine
         * @param wanted the networks the create names
         * @return {@code wanted} as {@link DockerEngine#lookUpNetworks} finds them: this look-up's answer if
         *         it was of exactly those, else a look-up made now
         * @throws DockerException as {@link DockerEngine#lookUpNetworks} throws it
         */
        List<NetworkInfo> resolve(DockerEngine docker, List<String> wanted) throws DockerException {
            return lookUp != null && names.equals(wanted) ? lookUp.answer() : docker.lookUpNetworks(wanted);
        }

        void settle() {
            if (lookUp != null) {
                lookUp.settle();
            }
        }
    }

    /** The look-up of a template's image by its reference, on its own virtual thread. */
    private static final class EarlyImage {
        private final Template template;
        private final EarlyCall<Optional<ImageInfo>> lookUp;

        /** Starts the look-up of {@code t}'s image. */
        EarlyImage(DockerEngine docker, Template t) {
            this.template = t;
            this.lookUp = EarlyCall.start("dogama-image-lookup", () -> docker.inspectImage(t.image()));
        }

        /** @return true if this look-up is of {@code t}'s image */
        boolean isFor(Template t) {
            return template.equals(t);
        }

        /** @return the engine's answer, as {@link DockerEngine#inspectImage} gives it, or its failure */
        Optional<ImageInfo> answer() throws DockerException {
            return lookUp.answer();
        }

        /** Waits for the look-up to end; its answer is not used. */
        void settle() {
            lookUp.settle();
        }
    }

    private static Outcome.Failed<?> prefixed(Outcome.Failed<?> f, String prefix) {
        if (prefix.isEmpty() || f.violations().isEmpty()) {
            return f;
        }
        List<Violation> v = f.violations().stream().map(x -> new Violation(prefix + x.field(), x.rule())).toList();
        return new Outcome.Failed<>(f.code(), v);
    }

    /**
     * @param facts  the image's facts
     * @param pulled whether the image was pulled for them
     */
    private record ImageResolution(ImageFacts facts, boolean pulled) {
    }

    /**
     * The image the template names: local by reference, else local by its pinned ID, else pulled
     * by its pinned manifest digest (content-addressed, so nothing else can arrive).
     */
    private ImageResolution image(Template t, EarlyImage early) throws Abort, DockerException {
        Optional<ImageInfo> info = early != null && early.isFor(t) ? early.answer() : docker.inspectImage(t.image());
        boolean pulled = false;
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
            pulled = true;
        }
        if (info.isEmpty()) {
            throw Abort.rejected("image", RULE_IMAGE_UNAVAILABLE);
        }
        return new ImageResolution(new ImageFacts(info.get().id(), info.get().repoDigests(), info.get().user(),
                info.get().volumes()), pulled);
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
}
