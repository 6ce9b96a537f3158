package io.dogama.agent.policy;

import io.dogama.agent.policy.internal.AdminConfigReader;
import io.dogama.agent.policy.internal.LabelKeys;
import io.dogama.agent.policy.internal.PathRules;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The administrator's configuration (SPEC section 11). Obtain it from {@link #parse(byte[])}, which
 * checks everything and resolves the allowed roots; the canonical constructor checks the shape and
 * the path rules on the paths as given (resolving them where they exist), so a hand-built config is
 * never laxer than the rules, but its roots may be unresolved (then no real source lies below them).
 *
 * @param listen        address and port the HTTP server binds
 * @param dockerSocket  the Docker engine's Unix socket
 * @param secretFile    the request-signing secret file
 * @param dataDir       the agent's data directory (registry, keys, nonces)
 * @param allowedRoots  allowed roots by name, each a real (symlink-free) absolute directory
 * @param configuredRoots the same roots as the file names them (normalized, links not resolved):
 *                      a path lexically below one of these or of {@code allowedRoots} gets the
 *                      symlink-aware check, any other path is refused without touching the file
 *                      system (SPEC 8.3, 1.1)
 * @param networks      approved DoGaMa networks, non-empty, in configured order
 * @param hostIps       approved literal host addresses for published ports
 * @param hostPorts     approved host port range
 * @param limits        administrator maximums
 * @param allowRootUser whether a plan may run as UID 0 or GID 0
 * @param customLabelPrefixes (1.1) when non-empty, every custom label key must start with one of
 *                      these; empty when the file omits the field (no narrowing). A present list
 *                      must have 1 to {@value io.dogama.agent.policy.internal.LabelKeys#MAX_PREFIXES}
 *                      entries
 * @param metricsFile   (1.1) where the metrics are also written, if configured
 * @param audit         (1.1) where the audit log lives and how large one file may grow
 */
public record AdminConfig(
        Listen listen,
        Path dockerSocket,
        Path secretFile,
        Path dataDir,
        Map<String, Path> allowedRoots,
        Map<String, Path> configuredRoots,
        List<String> networks,
        List<String> hostIps,
        PortRange hostPorts,
        Limits limits,
        boolean allowRootUser,
        List<String> customLabelPrefixes,
        Optional<Path> metricsFile,
        Audit audit) {

    /** Most allowed roots a configuration may name. */
    public static final int MAX_ALLOWED_ROOTS = 32;
    /** Most approved networks. */
    public static final int MAX_NETWORKS = 32;
    /** Most approved host addresses. */
    public static final int MAX_HOST_IPS = 32;
    /** Largest configuration file read, in bytes. */
    public static final int MAX_CONFIG_BYTES = 64 * 1024;
    /** Highest {@code limits.instances} value accepted. */
    public static final int MAX_INSTANCES = 10_000;
    /** Name of the audit folder inside the data directory when the file has no {@code audit.dir}. */
    public static final String DEFAULT_AUDIT_DIR_NAME = "audit";
    /** Largest audit file before it is rotated, when the file has no {@code audit.maxFileBytes}: 64 MiB. */
    public static final long DEFAULT_AUDIT_MAX_FILE_BYTES = 64L * 1024 * 1024;
    /** Smallest {@code audit.maxFileBytes}: 64 KiB, so that a file holds many lines. */
    public static final long MIN_AUDIT_FILE_BYTES = 64L * 1024;
    /** Largest {@code audit.maxFileBytes}: 1 GiB, so that verifying one file stays bounded. */
    public static final long MAX_AUDIT_FILE_BYTES = 1024L * 1024 * 1024;

    /**
     * Copies collections (roots sorted by name) and applies every rule that needs no parsing.
     *
     * @throws IllegalArgumentException listing every problem found
     */
    public AdminConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(dockerSocket, "dockerSocket");
        Objects.requireNonNull(secretFile, "secretFile");
        Objects.requireNonNull(dataDir, "dataDir");
        allowedRoots = Collections.unmodifiableMap(new TreeMap<>(allowedRoots));
        configuredRoots = Collections.unmodifiableMap(new TreeMap<>(configuredRoots));
        networks = List.copyOf(networks);
        hostIps = List.copyOf(hostIps);
        Objects.requireNonNull(hostPorts, "hostPorts");
        Objects.requireNonNull(limits, "limits");
        customLabelPrefixes = List.copyOf(customLabelPrefixes);
        Objects.requireNonNull(metricsFile, "metricsFile");
        Objects.requireNonNull(audit, "audit");
        List<String> problems = AdminConfigReader.shapeProblems(listen.host(), dockerSocket, secretFile, dataDir,
                allowedRoots, networks, hostIps);
        // The configured form only widens which paths get the full check, so it must name the same folder.
        if (!configuredRoots.keySet().equals(allowedRoots.keySet())) {
            problems.add("allowedRoots: configured_root_differs");
        } else {
            for (Map.Entry<String, Path> c : configuredRoots.entrySet()) {
                Path real = PathRules.resolveExisting(allowedRoots.get(c.getKey()));
                if (!PathRules.resolveExisting(c.getValue()).equals(real)) {
                    problems.add("allowedRoots." + c.getKey() + ": configured_root_differs");
                }
            }
        }
        AdminConfigReader.listenPortProblems(listen.host(), listen.port(), hostIps, hostPorts.min(), hostPorts.max())
                .forEach(problem -> problems.add("hostPorts: " + problem));
        if (!customLabelPrefixes.isEmpty()) {
            problems.addAll(LabelKeys.prefixProblems(customLabelPrefixes));
        }
        problems.addAll(AdminConfigReader.outputProblems(metricsFile, audit.dir(), dockerSocket, dataDir, secretFile,
                allowedRoots, configuredRoots));
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("policy: invalid administrator config: " + String.join("; ", problems));
        }
    }

    /**
     * The configuration's own rule between its allowed roots and a path it must keep out of them (as for
     * the Docker socket's folder and the data directory), for paths only the caller knows: component-wise,
     * each in its configured and its resolved form.
     *
     * @param path an absolute path
     * @return the name of an allowed root that holds {@code path} or lies inside it, if any
     */
    public Optional<String> rootAround(Path path) {
        List<Path> forms = PathRules.forms(path);
        for (Map.Entry<String, Path> root : configuredRoots.entrySet()) {
            List<Path> rootForms = new ArrayList<>(PathRules.forms(root.getValue()));
            rootForms.addAll(PathRules.forms(allowedRoots.get(root.getKey())));
            if (AdminConfigReader.overlap(forms, rootForms)) {
                return Optional.of(root.getKey());
            }
        }
        return Optional.empty();
    }

    /**
     * A configuration of the revision 1.0 shape, for callers that build one by hand (tests,
     * benchmarks): roots as configured are the roots themselves, no label prefixes, no metrics
     * file, the audit log in {@value #DEFAULT_AUDIT_DIR_NAME} under the data directory with
     * {@link #DEFAULT_AUDIT_MAX_FILE_BYTES}.
     *
     * @throws IllegalArgumentException listing every problem found
     */
    public AdminConfig(Listen listen, Path dockerSocket, Path secretFile, Path dataDir, Map<String, Path> allowedRoots,
            List<String> networks, List<String> hostIps, PortRange hostPorts, Limits limits, boolean allowRootUser) {
        this(listen, dockerSocket, secretFile, dataDir, allowedRoots, allowedRoots, networks, hostIps, hostPorts,
                limits, allowRootUser, List.of(), Optional.empty(),
                new Audit(Objects.requireNonNull(dataDir, "dataDir").resolve(DEFAULT_AUDIT_DIR_NAME),
                        DEFAULT_AUDIT_MAX_FILE_BYTES));
    }

    /**
     * Parses and checks a configuration file's bytes: the exact shape of SPEC section 11 (unknown,
     * missing, duplicate, null or mistyped fields are errors), literal IPs, port range, positive
     * limits, approved network names that are never {@code host}, {@code none}, {@code bridge},
     * {@code default} or {@code container:*}; every allowed root must exist, be a directory, is
     * resolved with {@code toRealPath}, and may not be {@code /}, contain or lie inside the Docker
     * socket's folder or the data directory, or contain the secret file. (1.1) The optional
     * {@code customLabelPrefixes} (see {@link io.dogama.agent.policy.internal.LabelKeys#prefixProblems}),
     * {@code metricsFile} and {@code audit} {@code {dir, maxFileBytes}} are checked too: absolute
     * clean paths, neither inside nor around an allowed root, nor in the Docker socket's folder.
     *
     * @param json the file's bytes (UTF-8 JSON), at most {@link #MAX_CONFIG_BYTES}
     * @return the configuration with allowed roots replaced by their real paths
     * @throws PolicyException listing every problem found as {@code field: rule} (no secret, no value)
     */
    public static AdminConfig parse(byte[] json) throws PolicyException {
        return AdminConfigReader.parse(json);
    }

    /**
     * Where the HTTP server listens.
     *
     * @param host literal IP address
     * @param port 1..65535
     */
    public record Listen(String host, int port) {
        /** Checks the port range. */
        public Listen {
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("policy: listen port out of range");
            }
        }
    }

    /**
     * An inclusive host port range.
     *
     * @param min lowest port, 1..65535
     * @param max highest port, min..65535
     */
    public record PortRange(int min, int max) {
        /** Requires {@code 1 <= min <= max <= 65535}. */
        public PortRange {
            if (min < 1 || max > 65535 || min > max) {
                throw new IllegalArgumentException("policy: host port range needs 1 <= min <= max <= 65535");
            }
        }

        /**
         * @param port candidate
         * @return true inside the range
         */
        public boolean contains(long port) {
            return port >= min && port <= max;
        }
    }

    /**
     * Where the audit log lives (SPEC section 14).
     *
     * @param dir          absolute folder of the audit files, never inside an allowed root (a container
     *                     could rewrite it)
     * @param maxFileBytes largest audit file, {@link #MIN_AUDIT_FILE_BYTES}..{@link #MAX_AUDIT_FILE_BYTES}
     */
    public record Audit(Path dir, long maxFileBytes) {
        /** Checks the size bounds and that the folder is absolute. */
        public Audit {
            Objects.requireNonNull(dir, "dir");
            if (!dir.isAbsolute() || maxFileBytes < MIN_AUDIT_FILE_BYTES || maxFileBytes > MAX_AUDIT_FILE_BYTES) {
                throw new IllegalArgumentException("policy: audit needs an absolute dir and "
                        + MIN_AUDIT_FILE_BYTES + " <= maxFileBytes <= " + MAX_AUDIT_FILE_BYTES);
            }
        }
    }

    /**
     * Administrator maximums, all positive.
     *
     * @param memoryBytes largest memory limit per container
     * @param nanoCpus    largest CPU quota per container
     * @param pidsLimit   largest process limit per container
     * @param instances   most registered instances, 1..{@link #MAX_INSTANCES}
     */
    public record Limits(long memoryBytes, long nanoCpus, long pidsLimit, int instances) {
        /** Requires positive values. */
        public Limits {
            if (memoryBytes <= 0 || nanoCpus <= 0 || pidsLimit <= 0 || instances <= 0 || instances > MAX_INSTANCES) {
                throw new IllegalArgumentException("policy: limits must be positive");
            }
        }
    }
}
