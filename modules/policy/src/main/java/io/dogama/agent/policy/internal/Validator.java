package io.dogama.agent.policy.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Ids;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.Catalog;
import io.dogama.agent.policy.ImageFacts;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.policy.Template;
import io.dogama.agent.policy.ValidationContext;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Every rule of SPEC section 8, collecting all violations. Immutable and thread-safe. */
public final class Validator {
    /** Highest UID or GID (SPEC 8.6). */
    public static final long MAX_ID = Integer.MAX_VALUE;
    private static final Pattern USER = Pattern.compile("(0|[1-9][0-9]*):(0|[1-9][0-9]*)");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    /** An image USER in numeric form, {@code UID} or {@code UID:GID}; names need the image's own files. */
    private static final Pattern NUMERIC_IMAGE_USER = Pattern.compile("([0-9]{1,10})(?::([0-9]{1,10}))?");
    /** Marks a UID or GID the image's own {@code /etc/passwd} decides, which the agent cannot see. */
    private static final long UNKNOWN_ID = -1;

    private final AdminConfig config;
    private final Catalog catalog;
    private final PathRules paths;

    /**
     * @param config  administrator configuration
     * @param catalog embedded catalog
     */
    public Validator(AdminConfig config, Catalog catalog) {
        this.config = config;
        this.catalog = catalog;
        this.paths = new PathRules(config);
    }

    /** @return the path rules of this configuration */
    public PathRules paths() {
        return paths;
    }

    /**
     * @param plan a parsed plan
     * @return the catalog's template of the plan's ID and version, the one {@link #validate} checks it against
     */
    public Optional<Template> template(Plan plan) {
        return catalog.find(plan.templateId(), plan.templateVersion());
    }

    /**
     * Outcome of phase one.
     *
     * @param violations    every violation, empty when valid
     * @param template      the template (null if unknown)
     * @param planDigest    the computed digest
     * @param canonicalJson the canonical plan
     * @param mounts        resolved mounts (complete only when valid)
     * @param ports         published ports (complete only when valid)
     */
    public record Result(List<Violation> violations, Template template, String planDigest, byte[] canonicalJson,
            List<ContainerSpec.BindMount> mounts, List<ContainerSpec.PublishedPort> ports) {
    }

    /**
     * Resolved mounts and their violations.
     *
     * @param mounts     resolved mounts, in plan order
     * @param violations violations
     */
    public record Mounts(List<ContainerSpec.BindMount> mounts, List<Violation> violations) {
    }

    /**
     * Phase one.
     *
     * @param plan    the plan
     * @param context engine and registry facts
     * @return the result
     */
    public Result validate(Plan plan, ValidationContext context) {
        List<Violation> v = new ArrayList<>();
        Template t = identity(plan, v);
        byte[] canonical = Canonical.plan(plan);
        String digest = Canonical.digest(canonical);
        if (plan.planDigest().isPresent() && !plan.planDigest().get().equals(digest)) {
            v.add(new Violation("planDigest", Rules.DIGEST_MISMATCH));
        }
        List<ContainerSpec.BindMount> mounts = List.of();
        if (t != null) {
            privileged(plan, t, v);
            env(plan, t, v);
            Mounts m = mountsFor(plan, t, context.registeredSources());
            v.addAll(m.violations());
            mounts = m.mounts();
        } else {
            for (int i = 0; i < plan.mounts().size(); i++) {
                PathRules.syntax(plan.mounts().get(i).source(), "mounts[" + i + "].source", v);
            }
        }
        List<ContainerSpec.PublishedPort> ports = ports(plan, t, context, v);
        resources(plan, t, context.engineNanoCpus(), v);
        labels(plan, v);
        user(plan, v);
        networks(plan, t, v);
        return new Result(List.copyOf(v), t, digest, canonical, mounts, ports);
    }

    private Template identity(Plan plan, List<Violation> v) {
        if (!Ids.isId(plan.instanceId())) {
            v.add(new Violation("instanceId", Rules.INVALID_ID));
        }
        boolean idOk = Ids.isId(plan.templateId());
        boolean versionOk = Ids.isVersion(plan.templateVersion());
        if (!idOk) {
            v.add(new Violation("templateId", Rules.INVALID_ID));
        }
        if (!versionOk) {
            v.add(new Violation("templateVersion", Rules.INVALID_VERSION));
        }
        if (!idOk || !versionOk) {
            return null;
        }
        Optional<Template> t = template(plan);
        if (t.isEmpty()) {
            v.add(catalog.hasId(plan.templateId()) ? new Violation("templateVersion", Rules.UNKNOWN_TEMPLATE)
                    : new Violation("templateId", Rules.UNKNOWN_TEMPLATE));
            return null;
        }
        return t.get();
    }

    private static void privileged(Plan plan, Template t, List<Violation> v) {
        if (!plan.image().equals(t.image())) {
            v.add(new Violation("image", Rules.IMAGE_MISMATCH));
        }
        // Omitted means "the template's"; given, it must be the template's exactly (null = image default).
        if (plan.command().isPresent() && !plan.command().equals(t.command())) {
            v.add(new Violation("command", Rules.COMMAND_MISMATCH));
        }
        if (plan.entrypoint().isPresent() && !plan.entrypoint().equals(t.entrypoint())) {
            v.add(new Violation("entrypoint", Rules.ENTRYPOINT_MISMATCH));
        }
        if (!plan.capAdd().equals(t.capAdd())) {
            v.add(new Violation("capAdd", Rules.CAP_ADD_MISMATCH));
        }
    }

    private static void env(Plan plan, Template t, List<Violation> v) {
        for (Map.Entry<String, String> e : new TreeMap<>(plan.env()).entrySet()) {
            String field = Json.Paths.child("env", e.getKey());
            Template.EnvRule rule = t.env().get(e.getKey());
            if (rule == null) {
                v.add(new Violation(field, Rules.UNDECLARED_ENV));
            } else if (e.getValue().indexOf('\0') >= 0 || !rule.accepts(e.getValue())) {
                // A NUL ends a C string: no process can be given it, whatever the template's pattern lets through.
                v.add(new Violation(field, Rules.ENV_PATTERN));
            }
        }
        t.env().forEach((key, rule) -> {
            if (rule.required() && !plan.env().containsKey(key)) {
                v.add(new Violation("env." + key, Rules.MISSING_ENV));
            }
        });
    }

    /**
     * The mount rules (also before every start).
     *
     * @param plan              a plan
     * @param registeredSources sources of the registered instances ({@link ValidationContext#registeredSources()})
     * @return resolved mounts and violations
     */
    public Mounts mounts(Plan plan, Map<String, List<String>> registeredSources) {
        List<Violation> v = new ArrayList<>();
        Template t = identity(plan, v);
        if (t == null) {
            return new Mounts(List.of(), v);
        }
        return mountsFor(plan, t, registeredSources);
    }

    private Mounts mountsFor(Plan plan, Template t, Map<String, List<String>> registeredSources) {
        List<Violation> v = new ArrayList<>();
        List<ContainerSpec.BindMount> resolved = new ArrayList<>();
        Sources others = Sources.of(registeredSources, id -> !id.equals(plan.instanceId()));
        Sources own = Sources.of(registeredSources, id -> id.equals(plan.instanceId()));
        List<Path> ownSources = new ArrayList<>();
        List<Path> ownWays = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < plan.mounts().size(); i++) {
            Plan.Mount m = plan.mounts().get(i);
            String field = "mounts[" + i + "]";
            Template.MountRule rule = t.mounts().get(m.target());
            if (rule == null) {
                v.add(new Violation(field + ".target", Rules.UNDECLARED_MOUNT));
                PathRules.syntax(m.source(), field + ".source", v);
                continue;
            }
            if (!seen.add(m.target())) {
                v.add(new Violation(field + ".target", Rules.DUPLICATE_MOUNT));
            }
            if (rule.readOnly() != m.readOnly()) {
                v.add(new Violation(field + ".readOnly", Rules.READ_ONLY_MISMATCH));
            }
            Optional<Path> real = paths.bindSource(m.source(), rule.root(), field + ".source", v);
            if (real.isEmpty()) {
                continue;
            }
            Path r = real.get();
            // Compared by components, the real path and (for other instances, whose claims are worked
            // out from their stated sources) the stated one too: a link cannot hide an overlap.
            Path stated = Path.of(m.source()).normalize();
            // A bind source is where a container writes, so a link inside one can be re-pointed by that container
            // (one running as root or as the agent makes folders that count as safe), and a folder inside one made a
            // link: the stated path would then lead elsewhere, and the folder it leads to now, still mounted, would
            // be claimed by nobody. So nothing the stated path goes through before its end may lie inside a source,
            // and no source may take in what another source's path goes through.
            List<Path> way = PathRules.wayTo(stated);
            boolean mountOverlap = ownSources.stream().anyMatch(o -> overlaps(r, o))
                    || way.stream().anyMatch(w -> inside(w, ownSources)) || inside(ownWays, r);
            if (mountOverlap) {
                v.add(new Violation(field + ".source", Rules.SOURCE_OVERLAPS_MOUNT));
            }
            boolean instanceOverlap = others.forms().stream().anyMatch(o -> overlaps(r, o) || overlaps(stated, o))
                    || way.stream().anyMatch(w -> inside(w, others.reals())) || inside(others.ways(), r);
            if (instanceOverlap) {
                v.add(new Violation(field + ".source", Rules.SOURCE_OVERLAPS_INSTANCE));
            }
            boolean throughOwn = way.stream().anyMatch(w -> w.startsWith(r) || inside(w, own.reals()))
                    || inside(own.ways(), r);
            if (throughOwn) {
                v.add(new Violation(field + ".source", Rules.UNSAFE_ANCESTOR));
            }
            ownSources.add(r);
            ownWays.addAll(way);
            resolved.add(new ContainerSpec.BindMount(r.toString(), m.target(), m.readOnly()));
        }
        for (String target : t.mounts().keySet()) {
            if (!seen.contains(target)) {
                v.add(new Violation("mounts", Rules.MISSING_MOUNT));
            }
        }
        return new Mounts(List.copyOf(resolved), List.copyOf(v));
    }

    /** @return true if one path equals, contains or lies inside the other, component by component */
    private static boolean overlaps(Path a, Path b) {
        return a.startsWith(b) || b.startsWith(a);
    }

    /** @return true if {@code step} lies inside one of {@code sources} */
    private static boolean inside(Path step, List<Path> sources) {
        return sources.stream().anyMatch(step::startsWith);
    }

    /** @return true if one of {@code way} lies inside {@code source} */
    private static boolean inside(List<Path> way, Path source) {
        return way.stream().anyMatch(w -> w.startsWith(source));
    }

    /**
     * What registered bind sources claim: each in its normalized and its real form (a source that vanished or
     * became a link still counts where it was); the real forms alone, where their containers write; and what their
     * stated paths go through ({@link PathRules#wayTo}).
     */
    private record Sources(List<Path> forms, List<Path> reals, List<Path> ways) {
        static Sources of(Map<String, List<String>> registeredSources, java.util.function.Predicate<String> whose) {
            List<Path> forms = new ArrayList<>();
            List<Path> reals = new ArrayList<>();
            List<Path> ways = new ArrayList<>();
            registeredSources.forEach((id, sources) -> {
                if (!whose.test(id)) {
                    return;
                }
                for (String s : sources) {
                    try {
                        Path p = Path.of(s);
                        if (p.isAbsolute()) {
                            List<Path> f = PathRules.forms(p);
                            forms.addAll(f);
                            reals.add(f.getLast());
                            ways.addAll(PathRules.wayTo(p));
                        }
                    } catch (InvalidPathException e) {
                        // A registered plan passed the path syntax rules; this cannot name a real folder.
                    }
                }
            });
            return new Sources(List.copyOf(forms), List.copyOf(reals), List.copyOf(ways));
        }
    }

    /**
     * @param now     mounts resolved now
     * @param created mounts the container was created with
     * @return {@code mount_changed} violations
     */
    public List<Violation> unchanged(List<ContainerSpec.BindMount> now, List<ContainerSpec.BindMount> created) {
        List<Violation> v = new ArrayList<>();
        if (now.size() != created.size()) {
            v.add(new Violation("mounts", Rules.MOUNT_CHANGED));
            return v;
        }
        for (int i = 0; i < now.size(); i++) {
            ContainerSpec.BindMount c = created.get(i);
            if (!now.get(i).equals(c) || !PathRules.stillReal(c.source())) {
                v.add(new Violation("mounts[" + i + "].source", Rules.MOUNT_CHANGED));
            }
        }
        return v;
    }

    private List<ContainerSpec.PublishedPort> ports(Plan plan, Template t, ValidationContext ctx, List<Violation> v) {
        List<ContainerSpec.PublishedPort> published = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<HostPort> others = new ArrayList<>(ctx.dockerPublished());
        ctx.registeredBindings().forEach((id, bindings) -> {
            if (!id.equals(plan.instanceId())) {
                others.addAll(bindings);
            }
        });
        for (int i = 0; i < plan.ports().size(); i++) {
            Plan.Port p = plan.ports().get(i);
            String field = "ports[" + i + "]";
            Template.PortRule rule = null;
            if (t != null) {
                rule = t.ports().get(p.name());
                if (rule == null) {
                    v.add(new Violation(field + ".name", Rules.UNDECLARED_PORT));
                } else if (!names.add(p.name())) {
                    v.add(new Violation(field + ".name", Rules.DUPLICATE_PORT));
                }
            }
            boolean containerPortOk = p.containerPort() >= 1 && p.containerPort() <= 65535;
            if (!containerPortOk) {
                v.add(new Violation(field + ".containerPort", Rules.PORT_OUT_OF_RANGE));
            } else if (rule != null && rule.containerPort() != p.containerPort()) {
                v.add(new Violation(field + ".containerPort", Rules.CONTAINER_PORT_MISMATCH));
            }
            Optional<Protocol> protocol = Protocol.parse(p.protocol());
            if (protocol.isEmpty() || (rule != null && rule.protocol() != protocol.get())) {
                v.add(new Violation(field + ".protocol", Rules.PROTOCOL_MISMATCH));
            }
            boolean hostPortOk = config.hostPorts().contains(p.hostPort());
            if (!hostPortOk) {
                v.add(new Violation(field + ".hostPort", Rules.PORT_OUT_OF_RANGE));
            }
            if (!config.hostIps().contains(p.hostIp())) {
                v.add(new Violation(field + ".hostIp", Rules.HOST_IP_NOT_APPROVED));
            }
            if (protocol.isPresent() && hostPortOk && containerPortOk) {
                HostPort hp = new HostPort(p.hostIp(), (int) p.hostPort(), protocol.get());
                boolean conflict = published.stream().anyMatch(x -> x.host().conflictsWith(hp))
                        || others.stream().anyMatch(hp::conflictsWith);
                if (conflict) {
                    v.add(new Violation(field + ".hostPort", Rules.PORT_CONFLICT));
                }
                published.add(new ContainerSpec.PublishedPort((int) p.containerPort(), hp));
            }
        }
        return published;
    }

    private void resources(Plan plan, Template t, long engineNanoCpus, List<Violation> v) {
        Plan.Resources r = plan.resources();
        AdminConfig.Limits max = config.limits();
        limit("resources.memoryBytes", r.memoryBytes(), t == null ? null : t.resources().memoryBytes(),
                max.memoryBytes(), v);
        limit("resources.nanoCpus", r.nanoCpus(), t == null ? null : t.resources().nanoCpus(), max.nanoCpus(), v);
        if (r.nanoCpus() > engineNanoCpus) {
            // A template and a configuration may allow more CPUs than this engine has; it would refuse the create.
            v.add(new Violation("resources.nanoCpus", Rules.OVER_ENGINE_CPUS));
        }
        limit("resources.pidsLimit", r.pidsLimit(), t == null ? null : t.resources().pidsLimit(), max.pidsLimit(), v);
    }

    private static void limit(String field, long value, Template.Bounds bounds, long adminMax, List<Violation> v) {
        if (value <= 0 || (bounds != null && !bounds.contains(value))) {
            v.add(new Violation(field, Rules.RESOURCE_OUT_OF_BOUNDS));
        }
        if (value > adminMax) {
            v.add(new Violation(field, Rules.OVER_ADMIN_LIMIT));
        }
    }

    private void labels(Plan plan, List<Violation> v) {
        if (plan.labels().size() > Labels.MAX_CUSTOM) {
            v.add(new Violation("labels", Rules.TOO_MANY_LABELS));
        }
        for (Map.Entry<String, String> e : new TreeMap<>(plan.labels()).entrySet()) {
            String field = Json.Paths.child("labels", e.getKey());
            if (Labels.isReserved(e.getKey())) {
                v.add(new Violation(field, Rules.RESERVED_LABEL));
            }
            if (!Labels.CUSTOM_KEY.matcher(e.getKey()).matches()) {
                v.add(new Violation(field, Rules.LABEL_KEY));
            }
            if (LabelKeys.isForeign(e.getKey())) {
                v.add(new Violation(field, Rules.FOREIGN_LABEL_NAMESPACE));
            }
            if (!LabelKeys.permitted(e.getKey(), config.customLabelPrefixes())) {
                v.add(new Violation(field, Rules.LABEL_PREFIX_NOT_ALLOWED));
            }
            if (!printable(e.getValue())) {
                v.add(new Violation(field, Rules.LABEL_VALUE));
            }
        }
    }

    /**
     * @param s a label value
     * @return true for at most 256 code points, none a control, format, surrogate, private-use,
     *         unassigned or line/paragraph separator character
     */
    static boolean printable(String s) {
        if (s.codePointCount(0, s.length()) > Labels.MAX_VALUE_LENGTH) {
            return false;
        }
        return s.codePoints().allMatch(cp -> switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                    Character.UNASSIGNED, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        });
    }

    private void user(Plan plan, List<Violation> v) {
        if (plan.user().isEmpty()) {
            return;
        }
        Matcher m = USER.matcher(plan.user().get());
        if (!m.matches()) {
            v.add(new Violation("user", Rules.USER_NOT_NUMERIC));
            return;
        }
        // At most 10 digits fit a long without overflow; more is out of range anyway.
        String uid = m.group(1);
        String gid = m.group(2);
        if (uid.length() > 10 || gid.length() > 10 || Long.parseLong(uid) > MAX_ID || Long.parseLong(gid) > MAX_ID) {
            v.add(new Violation("user", Rules.USER_OUT_OF_RANGE));
            return;
        }
        ids(Long.parseLong(uid), Long.parseLong(gid), v);
    }

    /**
     * The rules on the numeric identity a container runs as, from the plan or the image's USER
     * ({@link #UNKNOWN_ID} where the image's own files decide): root (UID or GID 0) only when the
     * administrator allows it, and never the group owning the Docker socket, as UID or GID (a
     * container in that group is one mount away from host root). An unknown ID, or a socket whose
     * group cannot be read, proves nothing and is refused.
     */
    private void ids(long uid, long gid, List<Violation> v) {
        boolean unknown = uid == UNKNOWN_ID || gid == UNKNOWN_ID;
        if (!config.allowRootUser() && (unknown || uid == 0 || gid == 0)) {
            v.add(new Violation("user", Rules.ROOT_USER_FORBIDDEN));
        }
        OptionalInt socketGroup = paths.socketGroup();
        if (unknown || socketGroup.isEmpty() || uid == socketGroup.getAsInt() || gid == socketGroup.getAsInt()) {
            v.add(new Violation("user", Rules.FORBIDDEN_GROUP));
        }
    }

    private void networks(Plan plan, Template t, List<Violation> v) {
        if (plan.networks().isEmpty()) {
            v.add(new Violation("networks", Rules.MISSING_NETWORK));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < plan.networks().size(); i++) {
            String n = plan.networks().get(i);
            String field = "networks[" + i + "]";
            if (!seen.add(n)) {
                v.add(new Violation(field, Rules.DUPLICATE_NETWORK));
            } else if (Names.isForbiddenNetwork(n) || !config.networks().contains(n)) {
                v.add(new Violation(field, Rules.NETWORK_NOT_APPROVED));
            } else if (t != null && !t.networks().permits(n)) {
                v.add(new Violation(field, Rules.NETWORK_NOT_ALLOWED));
            }
        }
    }

    /**
     * Phase two: the resolved image must be the pinned one.
     *
     * @param plan  the validated plan
     * @param t     its template
     * @param facts what the engine reports
     * @return violations
     */
    public List<Violation> checkImage(Plan plan, Template t, ImageFacts facts) {
        List<Violation> v = new ArrayList<>();
        boolean same = DIGEST.matcher(facts.imageId()).matches();
        if (t.imageId().isPresent()) {
            same &= t.imageId().get().equals(facts.imageId());
        }
        if (t.manifestDigest().isPresent()) {
            String repo = Names.familiarRepository(t.image());
            String digest = t.manifestDigest().get();
            same &= facts.repoDigests().stream().anyMatch(rd -> {
                int at = rd.indexOf('@');
                return at > 0 && rd.substring(at + 1).equals(digest)
                        && Names.familiarRepository(rd.substring(0, at)).equals(repo);
            });
        }
        if (!same) {
            v.add(new Violation("image", Rules.IMAGE_SUBSTITUTED));
        }
        Set<String> covered = new HashSet<>(t.tmpfs().keySet());
        plan.mounts().forEach(m -> covered.add(m.target()));
        for (String volume : facts.volumes()) {
            // A Dockerfile's VOLUME keeps the path as written ("/data/"); the engine mounts at the clean path.
            // One this JVM cannot even name (a NUL, or a character outside the locale's file-name encoding)
            // is covered by nothing.
            String clean;
            try {
                clean = Path.of(volume).normalize().toString();
            } catch (InvalidPathException e) {
                clean = null;
            }
            if (clean == null || !covered.contains(clean)) {
                v.add(new Violation("image", Rules.IMAGE_VOLUME_UNCOVERED));
                break;
            }
        }
        // With no user in the plan the image's USER applies, under the same rules as a plan's user.
        if (plan.user().isEmpty()) {
            NumericUser u = imageIds(facts.user());
            ids(u.uid(), u.gid(), v);
        }
        return v;
    }

    /**
     * A user as numeric IDs.
     *
     * @param uid the UID, or {@link #UNKNOWN_ID}
     * @param gid the GID, or {@link #UNKNOWN_ID}
     */
    private record NumericUser(long uid, long gid) {
    }

    /**
     * @param user an image config's {@code User}
     * @return its IDs: {@code ""} is Docker's default {@code 0:0}; a bare numeric UID leaves the
     *         GID to the image's {@code /etc/passwd} (0 when the UID is not listed), and a name leaves
     *         both to it: {@link #UNKNOWN_ID}
     */
    private static NumericUser imageIds(String user) {
        if (user.isEmpty()) {
            return new NumericUser(0, 0);
        }
        Matcher m = NUMERIC_IMAGE_USER.matcher(user);
        if (!m.matches()) {
            return new NumericUser(UNKNOWN_ID, UNKNOWN_ID);
        }
        return new NumericUser(numericId(m.group(1)), m.group(2) == null ? UNKNOWN_ID : numericId(m.group(2)));
    }

    private static long numericId(String digits) {
        long id = Long.parseLong(digits);
        return id <= MAX_ID ? id : UNKNOWN_ID;
    }
}
