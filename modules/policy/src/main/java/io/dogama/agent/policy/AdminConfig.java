package io.dogama.agent.policy;

import io.dogama.agent.policy.internal.AdminConfigReader;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * @param networks      approved DoGaMa networks, non-empty, in configured order
 * @param hostIps       approved literal host addresses for published ports
 * @param hostPorts     approved host port range
 * @param limits        administrator maximums
 * @param allowRootUser whether a plan may run as UID 0
 */
public record AdminConfig(
        Listen listen,
        Path dockerSocket,
        Path secretFile,
        Path dataDir,
        Map<String, Path> allowedRoots,
        List<String> networks,
        List<String> hostIps,
        PortRange hostPorts,
        Limits limits,
        boolean allowRootUser) {

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
        networks = List.copyOf(networks);
        hostIps = List.copyOf(hostIps);
        Objects.requireNonNull(hostPorts, "hostPorts");
        Objects.requireNonNull(limits, "limits");
        List<String> problems = AdminConfigReader.shapeProblems(listen.host(), dockerSocket, secretFile, dataDir,
                allowedRoots, networks, hostIps);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("policy: invalid administrator config: " + String.join("; ", problems));
        }
    }

    /**
     * Parses and checks a configuration file's bytes: the exact shape of SPEC section 11 (unknown,
     * missing, duplicate, null or mistyped fields are errors), literal IPs, port range, positive
     * limits, approved network names that are never {@code host}, {@code none}, {@code bridge},
     * {@code default} or {@code container:*}; every allowed root must exist, be a directory, is
     * resolved with {@code toRealPath}, and may not be {@code /}, contain or lie inside the Docker
     * socket's folder or the data directory, or contain the secret file.
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
