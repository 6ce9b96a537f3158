package io.dogama.agent.policy.internal;

import static io.dogama.agent.policy.internal.Fields.Presence.OPTIONAL;
import static io.dogama.agent.policy.internal.Fields.Presence.REQUIRED;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.Ids;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.PlanParser;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Rules;
import io.dogama.agent.policy.Template;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * The closed template schema (documented in {@code catalog/README.md}) and the admission rules: a
 * template may ask for nothing the fixed baseline of SPEC section 8 forbids.
 */
public final class TemplateReader {
    /** Capabilities a template may add; everything else stays dropped. */
    public static final Set<String> CAP_ALLOWLIST = Set.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",
            "NET_BIND_SERVICE", "SETGID", "SETUID");
    /** Stop signals a template may choose. */
    public static final Set<String> STOP_SIGNALS = Set.of("SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1",
            "SIGUSR2", "SIGWINCH");
    /** Largest tmpfs a template may declare: 256 MiB. */
    public static final long MAX_TMPFS_BYTES = 256L * 1024 * 1024;
    /** Most tmpfs mounts per template. */
    public static final int MAX_TMPFS = 8;
    /** Docker refuses a memory limit below 6 MiB. */
    public static final long MIN_MEMORY_BYTES = 6L * 1024 * 1024;
    /**
     * The least CPU quota the kernel takes: 1 ms in the engine's 100 ms period, 0.01 CPU (the engine's own message
     * names it); a plan below it would pass validation and fail at the create, after its intent.
     */
    public static final long MIN_NANO_CPUS = 10_000_000L;
    /** Most restart retries (SPEC 8); 0 would mean "unlimited" to Docker, so on-failure needs 1..10. */
    public static final int MAX_RESTART_RETRIES = 10;
    /** Container paths a mount or tmpfs may not cover: the kernel's and the engine's. */
    static final List<String> FORBIDDEN_TARGETS = List.of("/proc", "/sys", "/dev");

    private static final Set<String> FIELDS = Set.of("id", "version", "image", "imageId", "manifestDigest", "command",
            "entrypoint", "capAdd", "env", "mounts", "ports", "resources", "readOnlyRootfs", "tmpfs", "networks",
            "workingDir", "stopSignal", "restartPolicy");
    private static final Set<String> ENV_FIELDS = Set.of("pattern", "required");
    private static final Set<String> MOUNT_FIELDS = Set.of("root", "readOnly");
    private static final Set<String> PORT_FIELDS = Set.of("containerPort", "protocol");
    private static final Set<String> RESOURCE_FIELDS = Set.of("memoryBytes", "nanoCpus", "pidsLimit");
    private static final Set<String> BOUND_FIELDS = Set.of("min", "max");
    private static final Set<String> TMPFS_FIELDS = Set.of("sizeBytes");
    private static final Set<String> NETWORK_FIELDS = Set.of("anyApproved", "names");
    private static final Set<String> RESTART_FIELDS = Set.of("mode", "maxRetries");
    private static final Pattern ENV_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Pattern PORT_NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    private static final int MAX_SHORT = 256;

    private TemplateReader() {
    }

    /**
     * @param bytes the file's bytes
     * @param path  its path relative to the catalog folder, {@code <id>/<version>.json}
     * @return the admitted template
     * @throws PolicyException listing every problem as {@code path: field: rule}
     */
    public static Template read(byte[] bytes, String path) throws PolicyException {
        List<Violation> v = new ArrayList<>();
        Template t = null;
        try {
            t = template(Json.parse(bytes, PlanParser.MAX_DEPTH, v), path, v);
        } catch (Json.Malformed e) {
            throw new PolicyException("catalog: " + path + ": not valid JSON");
        }
        if (!v.isEmpty() || t == null) {
            throw new PolicyException("catalog: " + path + ": " + v.stream().map(x -> x.field() + ": " + x.rule())
                    .collect(Collectors.joining(", ")));
        }
        return t;
    }

    private static Template template(Json root, String path, List<Violation> v) {
        Fields f = Fields.of(root, Json.ROOT, v, FIELDS);
        if (f == null) {
            return null;
        }
        String id = f.string("id", REQUIRED, MAX_SHORT);
        String version = f.string("version", REQUIRED, MAX_SHORT);
        if (id != null && !Ids.isId(id)) {
            v.add(new Violation("id", Rules.INVALID_ID));
        }
        if (version != null && !Ids.isVersion(version)) {
            v.add(new Violation("version", Rules.INVALID_VERSION));
        }
        if (id != null && version != null && !path.equals(id + "/" + version + ".json")) {
            v.add(new Violation("id", "path_mismatch"));
        }
        String image = f.string("image", REQUIRED, MAX_SHORT);
        if (image != null && !Names.IMAGE_REFERENCE.matcher(image).matches()) {
            v.add(new Violation("image", "invalid_reference"));
        }
        String imageId = digest(f, "imageId", v);
        String manifestDigest = digest(f, "manifestDigest", v);
        if (!f.has("imageId") && !f.has("manifestDigest")) {
            v.add(new Violation("imageId", "image_not_pinned"));
        }
        Optional<List<String>> command = nullableArgs(f, "command", v);
        Optional<List<String>> entrypoint = nullableArgs(f, "entrypoint", v);
        List<String> capAdd = f.strings("capAdd", REQUIRED, PlanParser.MAX_CAP_ADD, MAX_SHORT);
        if (capAdd != null) {
            if (!CAP_ALLOWLIST.containsAll(capAdd)) {
                v.add(new Violation("capAdd", "not_allowlisted"));
            }
            if (new HashSet<>(capAdd).size() != capAdd.size()) {
                v.add(new Violation("capAdd", "duplicate"));
            }
        }
        Map<String, Template.EnvRule> env = env(f, v);
        Map<String, Template.MountRule> mounts = mounts(f, v);
        Map<String, Template.PortRule> ports = ports(f, v);
        Template.ResourceBounds resources = resources(f, v);
        Boolean readOnlyRootfs = f.bool("readOnlyRootfs", REQUIRED);
        Map<String, Template.TmpfsRule> tmpfs = tmpfs(f, v);
        if (mounts != null && tmpfs != null) {
            overlaps(mounts.keySet(), tmpfs.keySet(), v);
        }
        Template.NetworkRule networks = networks(f, v);
        String workingDir = f.string("workingDir", OPTIONAL, PathRules.MAX_PATH_LENGTH);
        if (workingDir != null) {
            containerPath(workingDir, "workingDir", v);
        }
        String stopSignal = f.string("stopSignal", OPTIONAL, MAX_SHORT);
        if (stopSignal != null && !STOP_SIGNALS.contains(stopSignal)) {
            v.add(new Violation("stopSignal", "not_allowlisted"));
        }
        ContainerSpec.RestartPolicy restart = restart(f, v);
        if (!v.isEmpty()) {
            return null;
        }
        return new Template(id, version, image, Optional.ofNullable(imageId), Optional.ofNullable(manifestDigest),
                command, entrypoint, capAdd, env, mounts, ports, resources, readOnlyRootfs, tmpfs, networks,
                Optional.ofNullable(workingDir), Optional.ofNullable(stopSignal), restart);
    }

    private static String digest(Fields f, String key, List<Violation> v) {
        String d = f.string(key, OPTIONAL, MAX_SHORT);
        if (d != null && !Names.SHA256.matcher(d).matches()) {
            v.add(new Violation(key, "invalid_digest"));
        }
        return d;
    }

    /** Required key; {@code null} means the image default. An empty list is ambiguous to Docker: refused. */
    private static Optional<List<String>> nullableArgs(Fields f, String key, List<Violation> v) {
        if (!f.has(key)) {
            v.add(new Violation(key, Rules.MISSING_FIELD));
            return Optional.empty();
        }
        if (f.isNull(key)) {
            return Optional.empty();
        }
        List<String> args = f.strings(key, REQUIRED, PlanParser.MAX_ARGS, PlanParser.MAX_STRING_LENGTH);
        if (args == null) {
            return Optional.empty();
        }
        if (args.isEmpty()) {
            v.add(new Violation(key, "empty_list"));
        }
        if (args.stream().anyMatch(a -> a.indexOf('\0') >= 0)) {
            v.add(new Violation(key, "invalid_string"));
        }
        return Optional.of(args);
    }

    private static Map<String, Template.EnvRule> env(Fields f, List<Violation> v) {
        Map<String, Fields> items = f.objectMap("env", REQUIRED, PlanParser.MAX_ENV, MAX_SHORT, ENV_FIELDS);
        if (items == null) {
            return null;
        }
        Map<String, Template.EnvRule> env = new LinkedHashMap<>();
        items.forEach((key, e) -> {
            if (!ENV_KEY.matcher(key).matches()) {
                v.add(new Violation(e.path(), Rules.ENV_KEY));
            }
            String pattern = e.string("pattern", REQUIRED, 1024);
            Boolean required = e.bool("required", REQUIRED);
            if (pattern != null && required != null) {
                try {
                    Pattern compiled = Pattern.compile(pattern);
                    if (BoundedMatch.backtracks(pattern)) {
                        v.add(new Violation(e.pathOf("pattern"), "backtracking_pattern"));
                    } else {
                        env.put(key, new Template.EnvRule(compiled, required));
                    }
                } catch (PatternSyntaxException x) {
                    v.add(new Violation(e.pathOf("pattern"), "invalid_pattern"));
                }
            }
        });
        return env;
    }

    private static Map<String, Template.MountRule> mounts(Fields f, List<Violation> v) {
        Map<String, Fields> items = f.objectMap("mounts", REQUIRED, PlanParser.MAX_MOUNTS, PathRules.MAX_PATH_LENGTH,
                MOUNT_FIELDS);
        if (items == null) {
            return null;
        }
        Map<String, Template.MountRule> mounts = new LinkedHashMap<>();
        items.forEach((target, m) -> {
            containerPath(target, m.path(), v);
            String root = m.string("root", REQUIRED, MAX_SHORT);
            Boolean readOnly = m.bool("readOnly", REQUIRED);
            if (root != null && !Names.ROOT_NAME.matcher(root).matches()) {
                v.add(new Violation(m.pathOf("root"), "invalid_root_name"));
            }
            if (root != null && readOnly != null) {
                mounts.put(target, new Template.MountRule(root, readOnly));
            }
        });
        return mounts;
    }

    private static Map<String, Template.PortRule> ports(Fields f, List<Violation> v) {
        Map<String, Fields> items = f.objectMap("ports", REQUIRED, PlanParser.MAX_PORTS, MAX_SHORT, PORT_FIELDS);
        if (items == null) {
            return null;
        }
        Map<String, Template.PortRule> ports = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        items.forEach((name, p) -> {
            if (!PORT_NAME.matcher(name).matches()) {
                v.add(new Violation(p.path(), "invalid_port_name"));
            }
            Long port = p.integer("containerPort", REQUIRED);
            String protocol = p.string("protocol", REQUIRED, MAX_SHORT);
            Optional<Protocol> proto = protocol == null ? Optional.empty() : Protocol.parse(protocol);
            if (protocol != null && proto.isEmpty()) {
                v.add(new Violation(p.pathOf("protocol"), Rules.PROTOCOL_MISMATCH));
            }
            if (port != null && (port < 1 || port > 65535)) {
                v.add(new Violation(p.pathOf("containerPort"), Rules.PORT_OUT_OF_RANGE));
            } else if (port != null && proto.isPresent()) {
                if (!seen.add(port + "/" + proto.get())) {
                    v.add(new Violation(p.path(), "duplicate_container_port"));
                }
                ports.put(name, new Template.PortRule(port.intValue(), proto.get()));
            }
        });
        return ports;
    }

    private static Template.ResourceBounds resources(Fields f, List<Violation> v) {
        Fields r = f.object("resources", REQUIRED, RESOURCE_FIELDS);
        if (r == null) {
            return null;
        }
        Template.Bounds memory = bounds(r, "memoryBytes", MIN_MEMORY_BYTES, v);
        Template.Bounds cpus = bounds(r, "nanoCpus", MIN_NANO_CPUS, v);
        Template.Bounds pids = bounds(r, "pidsLimit", 1, v);
        return memory == null || cpus == null || pids == null ? null
                : new Template.ResourceBounds(memory, cpus, pids);
    }

    private static Template.Bounds bounds(Fields r, String key, long floor, List<Violation> v) {
        Fields b = r.object(key, REQUIRED, BOUND_FIELDS);
        if (b == null) {
            return null;
        }
        Long min = b.integer("min", REQUIRED);
        Long max = b.integer("max", REQUIRED);
        if (min == null || max == null) {
            return null;
        }
        if (min < floor || max < min) {
            v.add(new Violation(b.path(), "invalid_bounds"));
            return null;
        }
        return new Template.Bounds(min, max);
    }

    private static Map<String, Template.TmpfsRule> tmpfs(Fields f, List<Violation> v) {
        Map<String, Fields> items = f.objectMap("tmpfs", REQUIRED, MAX_TMPFS, PathRules.MAX_PATH_LENGTH, TMPFS_FIELDS);
        if (items == null) {
            return null;
        }
        Map<String, Template.TmpfsRule> tmpfs = new LinkedHashMap<>();
        items.forEach((target, t) -> {
            containerPath(target, t.path(), v);
            Long size = t.integer("sizeBytes", REQUIRED);
            if (size != null && (size <= 0 || size > MAX_TMPFS_BYTES)) {
                v.add(new Violation(t.pathOf("sizeBytes"), "tmpfs_too_large"));
            } else if (size != null) {
                tmpfs.put(target, new Template.TmpfsRule(size));
            }
        });
        return tmpfs;
    }

    private static Template.NetworkRule networks(Fields f, List<Violation> v) {
        Fields n = f.object("networks", REQUIRED, NETWORK_FIELDS);
        if (n == null) {
            return null;
        }
        if (n.has("anyApproved") == n.has("names")) {
            v.add(new Violation(n.path(), "either_any_approved_or_names"));
            return null;
        }
        if (n.has("anyApproved")) {
            Boolean any = n.bool("anyApproved", REQUIRED);
            if (Boolean.FALSE.equals(any)) {
                v.add(new Violation(n.pathOf("anyApproved"), "either_any_approved_or_names"));
            }
            return Boolean.TRUE.equals(any) ? Template.NetworkRule.ANY_APPROVED : null;
        }
        List<String> names = n.strings("names", REQUIRED, PlanParser.MAX_NETWORKS, MAX_SHORT);
        if (names == null) {
            return null;
        }
        if (names.isEmpty() || names.stream().anyMatch(x -> !Names.NETWORK.matcher(x).matches()
                || Names.isForbiddenNetwork(x)) || new HashSet<>(names).size() != names.size()) {
            v.add(new Violation(n.pathOf("names"), Rules.NETWORK_NOT_APPROVED));
            return null;
        }
        return new Template.NetworkRule(false, Set.copyOf(names));
    }


    private static ContainerSpec.RestartPolicy restart(Fields f, List<Violation> v) {
        Fields r = f.object("restartPolicy", REQUIRED, RESTART_FIELDS);
        if (r == null) {
            return null;
        }
        String mode = r.string("mode", REQUIRED, MAX_SHORT);
        Long retries = r.integer("maxRetries", OPTIONAL);
        if (mode == null) {
            return null;
        }
        switch (mode) {
            case "no", "unless-stopped" -> {
                if (r.has("maxRetries")) {
                    v.add(new Violation(r.pathOf("maxRetries"), Rules.UNKNOWN_FIELD));
                    return null;
                }
                return mode.equals("no") ? ContainerSpec.RestartPolicy.NO
                        : new ContainerSpec.RestartPolicy(ContainerSpec.RestartPolicy.Mode.UNLESS_STOPPED, 0);
            }
            case "on-failure" -> {
                if (retries == null || retries < 1 || retries > MAX_RESTART_RETRIES) {
                    v.add(new Violation(r.pathOf("maxRetries"), "invalid_retries"));
                    return null;
                }
                return new ContainerSpec.RestartPolicy(ContainerSpec.RestartPolicy.Mode.ON_FAILURE,
                        retries.intValue());
            }
            default -> {
                v.add(new Violation(r.pathOf("mode"), "invalid_restart_mode"));
                return null;
            }
        }
    }

    /** A container path: absolute, clean, not {@code /} and not covering the kernel's or engine's paths. */
    private static void containerPath(String p, String field, List<Violation> v) {
        if (!PathRules.syntax(p, field, v)) {
            return;
        }
        if (p.equals("/") || FORBIDDEN_TARGETS.stream().anyMatch(x -> covers(x, p) || covers(p, x))) {
            v.add(new Violation(field, "forbidden_target"));
        }
    }

    private static void overlaps(Set<String> mounts, Set<String> tmpfs, List<Violation> v) {
        List<String> all = new ArrayList<>(mounts);
        all.addAll(tmpfs);
        for (int i = 0; i < all.size(); i++) {
            for (int j = 0; j < all.size(); j++) {
                if (i != j && covers(all.get(i), all.get(j))) {
                    v.add(new Violation("tmpfs", "overlapping_targets"));
                    return;
                }
            }
        }
    }

    /** @return true if {@code inner} is {@code outer} or lies below it, component-wise */
    static boolean covers(String outer, String inner) {
        return inner.equals(outer) || inner.startsWith(outer.endsWith("/") ? outer : outer + "/");
    }
}
