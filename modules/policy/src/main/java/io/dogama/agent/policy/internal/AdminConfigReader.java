package io.dogama.agent.policy.internal;

import static io.dogama.agent.policy.internal.Fields.Presence.OPTIONAL;
import static io.dogama.agent.policy.internal.Fields.Presence.REQUIRED;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.IpLiteral;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.AdminConfig;
import io.dogama.agent.policy.PolicyException;
import io.dogama.agent.policy.Rules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The exact configuration shape of SPEC section 11 and its rules. */
public final class AdminConfigReader {
    private static final Set<String> FIELDS = Set.of("listen", "dockerSocket", "secretFile", "dataDir",
            "allowedRoots", "networks", "hostIps", "hostPorts", "limits", "allowRootUser",
            // (1.1) optional
            "customLabelPrefixes", "metricsFile", "audit");
    private static final Set<String> AUDIT_FIELDS = Set.of("dir", "maxFileBytes");
    private static final Set<String> LISTEN_FIELDS = Set.of("host", "port");
    private static final Set<String> RANGE_FIELDS = Set.of("min", "max");
    private static final Set<String> LIMIT_FIELDS = Set.of("memoryBytes", "nanoCpus", "pidsLimit", "instances");
    /** Config rule: an allowed root lies inside another, or contains it. */
    static final String OVERLAPS_ALLOWED_ROOT = "overlaps_allowed_root";
    private static final int MAX_DEPTH = 8;
    private static final int MAX_SHORT = 256;

    private AdminConfigReader() {
    }

    /**
     * @param json the file's bytes
     * @return the configuration, roots resolved
     * @throws PolicyException listing every problem
     */
    public static AdminConfig parse(byte[] json) throws PolicyException {
        if (json.length > AdminConfig.MAX_CONFIG_BYTES) {
            throw new PolicyException("config: larger than " + AdminConfig.MAX_CONFIG_BYTES + " bytes");
        }
        List<Violation> v = new ArrayList<>();
        Json root;
        try {
            root = Json.parse(json, MAX_DEPTH, v);
        } catch (Json.Malformed e) {
            throw new PolicyException("config: not valid JSON");
        }
        Fields f = Fields.of(root, Json.ROOT, v, FIELDS);
        if (f == null) {
            throw fail(v);
        }
        Fields listen = f.object("listen", REQUIRED, LISTEN_FIELDS);
        String host = listen == null ? null : listen.string("host", REQUIRED, MAX_SHORT);
        Long port = listen == null ? null : listen.integer("port", REQUIRED);
        if (port != null && (port < 1 || port > 65535)) {
            v.add(new Violation("listen.port", Rules.PORT_OUT_OF_RANGE));
        }
        Path socket = path(f, "dockerSocket", v);
        Path secret = path(f, "secretFile", v);
        Path dataDir = path(f, "dataDir", v);
        Map<String, String> rootsText = f.stringMap("allowedRoots", REQUIRED, AdminConfig.MAX_ALLOWED_ROOTS,
                PathRules.MAX_PATH_LENGTH);
        List<String> networks = f.strings("networks", REQUIRED, AdminConfig.MAX_NETWORKS, MAX_SHORT);
        List<String> hostIps = f.strings("hostIps", REQUIRED, AdminConfig.MAX_HOST_IPS, MAX_SHORT);
        Fields range = f.object("hostPorts", REQUIRED, RANGE_FIELDS);
        Long min = range == null ? null : range.integer("min", REQUIRED);
        Long max = range == null ? null : range.integer("max", REQUIRED);
        if (min != null && max != null && (min < 1 || max > 65535 || min > max)) {
            v.add(new Violation("hostPorts", "invalid_range"));
        } else if (min != null && max != null && port != null && port >= 1 && port <= 65535 && host != null
                && hostIps != null) {
            listenPortProblems(host, port.intValue(), hostIps, min, max)
                    .forEach(problem -> v.add(new Violation("hostPorts", problem)));
        }
        Fields limits = f.object("limits", REQUIRED, LIMIT_FIELDS);
        Long memory = positive(limits, "memoryBytes", Long.MAX_VALUE, v);
        Long cpus = positive(limits, "nanoCpus", Long.MAX_VALUE, v);
        Long pids = positive(limits, "pidsLimit", Long.MAX_VALUE, v);
        Long instances = positive(limits, "instances", AdminConfig.MAX_INSTANCES, v);
        Boolean allowRoot = f.bool("allowRootUser", REQUIRED);
        List<String> prefixes = f.strings("customLabelPrefixes", OPTIONAL, LabelKeys.MAX_PREFIXES,
                LabelKeys.MAX_PREFIX_LENGTH);
        Optional<Path> metricsFile = f.has("metricsFile") ? Optional.ofNullable(path(f, "metricsFile", v))
                : Optional.empty();
        Fields audit = f.object("audit", OPTIONAL, AUDIT_FIELDS);
        Path auditDir = null;
        long auditMax = AdminConfig.DEFAULT_AUDIT_MAX_FILE_BYTES;
        if (audit != null) {
            String dirText = audit.string("dir", OPTIONAL, PathRules.MAX_PATH_LENGTH);
            if (dirText != null && PathRules.syntax(dirText, "audit.dir", v)) {
                auditDir = Path.of(dirText);
            }
            Long maxBytes = audit.integer("maxFileBytes", OPTIONAL);
            if (maxBytes != null && (maxBytes < AdminConfig.MIN_AUDIT_FILE_BYTES
                    || maxBytes > AdminConfig.MAX_AUDIT_FILE_BYTES)) {
                v.add(new Violation("audit.maxFileBytes", Rules.OUT_OF_RANGE));
            } else if (maxBytes != null) {
                auditMax = maxBytes;
            }
        }

        Map<String, Path> roots = new LinkedHashMap<>();
        Map<String, Path> configuredRoots = new LinkedHashMap<>();
        if (rootsText != null) {
            if (rootsText.isEmpty()) {
                v.add(new Violation("allowedRoots", "empty"));
            }
            rootsText.forEach((name, text) -> {
                String field = Json.Paths.child("allowedRoots", name);
                if (!Names.ROOT_NAME.matcher(name).matches()) {
                    v.add(new Violation(field, "invalid_root_name"));
                }
                realRoot(text, field, v).ifPresent(p -> {
                    roots.put(name, p);
                    configuredRoots.put(name, Path.of(text).normalize());
                });
            });
        }
        List<String> problems = new ArrayList<>();
        v.forEach(x -> problems.add(x.field() + ": " + x.rule()));
        if (prefixes != null) {
            problems.addAll(LabelKeys.prefixProblems(prefixes));
        }
        if (host != null && socket != null && secret != null && dataDir != null && networks != null
                && hostIps != null) {
            problems.addAll(shapeProblems(host, socket, secret, dataDir, roots, networks, hostIps));
            problems.addAll(outputProblems(metricsFile, auditDir == null ? dataDir : auditDir, socket, dataDir, secret,
                    roots, configuredRoots));
        }
        if (!problems.isEmpty()) {
            throw new PolicyException("config: " + String.join("; ", problems));
        }
        AdminConfig.Audit auditConfig = new AdminConfig.Audit(
                auditDir == null ? dataDir.resolve(AdminConfig.DEFAULT_AUDIT_DIR_NAME) : auditDir, auditMax);
        return new AdminConfig(new AdminConfig.Listen(host, port.intValue()), socket, secret, dataDir, roots,
                configuredRoots, networks, hostIps, new AdminConfig.PortRange(min.intValue(), max.intValue()),
                new AdminConfig.Limits(memory, cpus, pids, instances.intValue()), allowRoot,
                prefixes == null ? List.of() : prefixes, metricsFile, auditConfig);
    }

    /**
     * A host port range that holds the agent's own port, on an address a plan may publish it on, would let a plan
     * take it: on a host where the agent listens, a container the engine starts before the agent would get its
     * requests (with the engine's userland proxy off, its rules redirect the port even while the agent holds it).
     *
     * @return the rule broken, if any
     */
    public static List<String> listenPortProblems(String listenHost, int listenPort, List<String> hostIps, long min,
            long max) {
        if (listenPort < min || listenPort > max) {
            return List.of();
        }
        HostPort own = new HostPort(listenHost, listenPort, Protocol.TCP);
        return hostIps.stream().anyMatch(ip -> own.conflictsWith(new HostPort(ip, listenPort, Protocol.TCP)))
                ? List.of("contains_listen_port") : List.of();
    }

    /**
     * (1.1) Where the agent writes besides its data directory: the metrics file and the audit
     * folder must be absolute, neither inside nor around an allowed root (a container could swap
     * a component or rewrite what the agent wrote) nor in the Docker socket's folder. The metrics
     * file, which is replaced by a rename, may not lie in the data directory or the audit folder (it
     * could take the name of a key, the registry or a log, and would be the one file there others may
     * read) nor be the secret file. Compared in configured and best-effort real form.
     *
     * @param metricsFile the metrics file, if configured
     * @param auditDir    the audit folder
     * @param socket      the Docker socket
     * @param dataDir     the data directory
     * @param secret      the secret file
     * @param roots       the allowed roots (real)
     * @param configured  the allowed roots as configured
     * @return every problem as {@code field: rule}
     */
    public static List<String> outputProblems(Optional<Path> metricsFile, Path auditDir, Path socket, Path dataDir,
            Path secret, Map<String, Path> roots, Map<String, Path> configured) {
        List<String> p = new ArrayList<>();
        List<Path> rootForms = new ArrayList<>();
        roots.values().forEach(r -> rootForms.addAll(PathRules.forms(r)));
        configured.values().forEach(r -> rootForms.addAll(PathRules.forms(r)));
        // "/" as a root is refused on its own; it would make every output path "inside" it too.
        rootForms.removeIf(r -> r.getNameCount() == 0);
        List<Path> socketFolders = PathRules.forms(socket).stream()
                .map(s -> s.getParent() == null ? s : s.getParent()).toList();
        Map<String, Path> outputs = new LinkedHashMap<>();
        metricsFile.ifPresent(m -> outputs.put("metricsFile", m));
        outputs.put("audit.dir", auditDir);
        outputs.forEach((field, path) -> {
            if (!path.isAbsolute() || path.getNameCount() == 0) {
                p.add(field + ": " + Rules.NOT_ABSOLUTE);
                return;
            }
            List<Path> forms = PathRules.forms(path);
            if (overlap(forms, rootForms)) {
                p.add(field + ": inside_allowed_root");
            }
            if (forms.stream().anyMatch(x -> socketFolders.stream().anyMatch(x::startsWith))) {
                p.add(field + ": " + Rules.DOCKER_SOCKET);
            }
        });
        if (metricsFile.isPresent() && metricsFile.get().isAbsolute() && metricsFile.get().getNameCount() > 0) {
            List<Path> forms = PathRules.forms(metricsFile.get());
            List<Path> own = new ArrayList<>(PathRules.forms(dataDir));
            own.addAll(PathRules.forms(auditDir));
            if (forms.stream().anyMatch(x -> own.stream().anyMatch(x::startsWith))) {
                p.add("metricsFile: " + Rules.DATA_DIR);
            }
            if (!Collections.disjoint(forms, PathRules.forms(secret))) {
                p.add("metricsFile: is_secret_file");
            }
        }
        return p;
    }

    private static PolicyException fail(List<Violation> v) {
        return new PolicyException("config: " + v.stream().map(x -> x.field() + ": " + x.rule())
                .collect(Collectors.joining("; ")));
    }

    private static Path path(Fields f, String key, List<Violation> v) {
        String s = f.string(key, REQUIRED, PathRules.MAX_PATH_LENGTH);
        if (s == null || !PathRules.syntax(s, key, v)) {
            return null;
        }
        return Path.of(s);
    }

    private static Long positive(Fields f, String key, long max, List<Violation> v) {
        Long value = f == null ? null : f.integer(key, REQUIRED);
        if (value != null && (value <= 0 || value > max)) {
            v.add(new Violation("limits." + key, Rules.OUT_OF_RANGE));
            return null;
        }
        return value;
    }

    private static java.util.Optional<Path> realRoot(String text, String field, List<Violation> v) {
        if (!PathRules.syntax(text, field, v)) {
            return java.util.Optional.empty();
        }
        try {
            Path real = Path.of(text).toRealPath();
            if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
                v.add(new Violation(field, "not_a_directory"));
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(real);
        } catch (IOException | InvalidPathException e) {
            v.add(new Violation(field, Rules.NOT_FOUND));
            return java.util.Optional.empty();
        }
    }

    /** @return true if a path of one list contains or lies inside a path of the other, component-wise */
    public static boolean overlap(List<Path> a, List<Path> b) {
        return a.stream().anyMatch(x -> b.stream().anyMatch(y -> x.startsWith(y) || y.startsWith(x)));
    }

    /**
     * The rules shared by the parser and the record's constructor: literal listen host, absolute clean paths, roots that are
     * not {@code /}, neither contain nor lie inside the Docker socket's folder, the data directory or
     * another root, and do not contain the secret file, approvable network names, host IPs as canonical literals. Paths
     * are compared in their best-effort real form ({@link PathRules#resolveExisting}).
     *
     * @return every problem as {@code field: rule}
     */
    public static List<String> shapeProblems(String listenHost, Path socket, Path secret, Path dataDir,
            Map<String, Path> roots, List<String> networks, List<String> hostIps) {
        List<String> p = new ArrayList<>();
        if (IpLiteral.canonical(listenHost).isEmpty()) {
            p.add("listen.host: not_ip_literal");
        }
        for (var e : Map.of("dockerSocket", socket, "secretFile", secret, "dataDir", dataDir).entrySet()) {
            if (!e.getValue().isAbsolute() || e.getValue().getNameCount() == 0) {
                p.add(e.getKey() + ": " + Rules.NOT_ABSOLUTE);
            }
        }
        if (!p.isEmpty()) {
            return p;
        }
        // Both the configured and the resolved form: a link must not hide a folder inside (or around) a root.
        List<Path> socketFolders = PathRules.forms(socket).stream().map(s -> s.getParent() == null ? s : s.getParent())
                .toList();
        List<Path> dataDirs = PathRules.forms(dataDir);
        List<Path> secrets = PathRules.forms(secret);
        if (roots.isEmpty()) {
            p.add("allowedRoots: empty");
        }
        roots.forEach((name, root) -> {
            String field = "allowedRoots." + name;
            if (!root.isAbsolute()) {
                p.add(field + ": " + Rules.NOT_ABSOLUTE);
                return;
            }
            List<Path> forms = PathRules.forms(root);
            if (forms.stream().anyMatch(r -> r.getNameCount() == 0)) {
                p.add(field + ": is_filesystem_root");
                return;
            }
            if (overlap(forms, socketFolders)) {
                p.add(field + ": " + Rules.DOCKER_SOCKET);
            }
            if (overlap(forms, dataDirs)) {
                p.add(field + ": " + Rules.DATA_DIR);
            }
            if (forms.stream().anyMatch(r -> secrets.stream().anyMatch(x -> x.startsWith(r)))) {
                p.add(field + ": contains_secret_file");
            }
            // One root inside another would let a template of the outer one mount the inner root whole, whatever
            // the templates of the inner one allow (a source may be anything strictly below its own root).
            roots.forEach((otherName, other) -> {
                if (!otherName.equals(name) && other.isAbsolute() && overlap(forms, PathRules.forms(other))) {
                    p.add(field + ": " + OVERLAPS_ALLOWED_ROOT);
                }
            });
        });
        if (networks.isEmpty()) {
            p.add("networks: empty");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < networks.size(); i++) {
            String n = networks.get(i);
            if (!Names.NETWORK.matcher(n).matches() || Names.isForbiddenNetwork(n)) {
                p.add("networks[" + i + "]: " + Rules.NETWORK_NOT_APPROVED);
            } else if (!seen.add(n)) {
                p.add("networks[" + i + "]: " + Rules.DUPLICATE_NETWORK);
            }
        }
        if (hostIps.isEmpty()) {
            p.add("hostIps: empty");
        }
        Set<String> ips = new HashSet<>();
        for (int i = 0; i < hostIps.size(); i++) {
            Optional<String> canonical = IpLiteral.canonical(hostIps.get(i));
            if (canonical.isEmpty()) {
                p.add("hostIps[" + i + "]: not_ip_literal");
            } else if (!canonical.get().equals(hostIps.get(i))) {
                // Compared as written (a plan's hostIp must be one of these), so one spelling per address.
                p.add("hostIps[" + i + "]: not_canonical_ip (write " + canonical.get() + ")");
            } else if (!ips.add(hostIps.get(i))) {
                p.add("hostIps[" + i + "]: duplicate");
            }
        }
        return p;
    }
}
