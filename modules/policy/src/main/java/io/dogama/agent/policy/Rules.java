package io.dogama.agent.policy;

/**
 * The stable rule names carried by {@link io.dogama.agent.core.Violation#rule()}; documented with
 * their meaning in {@code catalog/README.md}. Clients may match on them, so they never change.
 */
public final class Rules {
    // --- schema (PlanParser) ---
    /** A field the closed schema does not know. */
    public static final String UNKNOWN_FIELD = "unknown_field";
    /** A key repeated in one JSON object (the first occurrence is kept for further checks). */
    public static final String DUPLICATE_KEY = "duplicate_key";
    /** A value of the wrong JSON type, including a fraction or exponent where an integer is expected. */
    public static final String WRONG_TYPE = "wrong_type";
    /** {@code null} where a value is required (optional fields are omitted, never null). */
    public static final String NULL_VALUE = "null_value";
    /** A required field is absent. */
    public static final String MISSING_FIELD = "missing_field";
    /** A string, array or object over its bound, or the whole body over its bound. */
    public static final String TOO_LARGE = "too_large";
    /** An integer outside the interoperable range of +/-(2^53-1). */
    public static final String OUT_OF_RANGE = "out_of_range";
    /** A string holding an unpaired UTF-16 surrogate. */
    public static final String INVALID_STRING = "invalid_string";

    // --- identity (SPEC 8.1, 6) ---
    /** Instance or template ID syntax. */
    public static final String INVALID_ID = "invalid_id";
    /** Template version syntax. */
    public static final String INVALID_VERSION = "invalid_version";
    /** No such template ID, or no such version of it, in the embedded catalog. */
    public static final String UNKNOWN_TEMPLATE = "unknown_template";
    /** The supplied planDigest is not the one the agent computed. */
    public static final String DIGEST_MISMATCH = "digest_mismatch";

    // --- privileged fields (SPEC 8.2) ---
    /** The image reference differs from the template's. */
    public static final String IMAGE_MISMATCH = "image_mismatch";
    /** The reference resolved to another image than the pinned one. */
    public static final String IMAGE_SUBSTITUTED = "image_substituted";
    /**
     * The image declares a volume ({@code VOLUME}) at a path that neither a plan mount nor a template tmpfs
     * covers: the engine would make an anonymous volume there (SPEC 8: mounts only as validated bind mounts
     * and the template's tmpfs), which outlives the container.
     */
    public static final String IMAGE_VOLUME_UNCOVERED = "image_volume_uncovered";
    /** A command was given and differs from the template's. */
    public static final String COMMAND_MISMATCH = "command_mismatch";
    /** An entrypoint was given and differs from the template's. */
    public static final String ENTRYPOINT_MISMATCH = "entrypoint_mismatch";
    /** capAdd differs from the template's. */
    public static final String CAP_ADD_MISMATCH = "cap_add_mismatch";
    /** An env key the template does not declare. */
    public static final String UNDECLARED_ENV = "undeclared_env";
    /** An env value that does not match the template's pattern. */
    public static final String ENV_PATTERN = "env_pattern";
    /** A required env key is absent. */
    public static final String MISSING_ENV = "missing_env";

    // --- mounts and paths (SPEC 8.3, check-disk) ---
    /** A mount target the template does not declare. */
    public static final String UNDECLARED_MOUNT = "undeclared_mount";
    /** A declared mount is absent. */
    public static final String MISSING_MOUNT = "missing_mount";
    /** A target requested twice. */
    public static final String DUPLICATE_MOUNT = "duplicate_mount";
    /** readOnly differs from the template's. */
    public static final String READ_ONLY_MISMATCH = "read_only_mismatch";
    /** A path that is not absolute. */
    public static final String NOT_ABSOLUTE = "not_absolute";
    /** A path with a {@code .} or {@code ..} segment. */
    public static final String DOT_SEGMENT = "dot_segment";
    /** A path with an empty segment ({@code //}) or a trailing slash. */
    public static final String EMPTY_SEGMENT = "empty_segment";
    /** A path with a NUL or another control character, or over the length bound. */
    public static final String INVALID_PATH = "invalid_path";
    /** A path that does not exist or cannot be resolved. */
    public static final String NOT_FOUND = "not_found";
    /** A path that is neither a directory nor a regular file once resolved (socket, device, fifo). */
    public static final String NOT_REGULAR = "not_regular";
    /** The resolved path does not lie below the allowed root (itself resolved). */
    public static final String OUTSIDE_ALLOWED_ROOT = "outside_allowed_root";
    /** The template names a root the administrator did not configure. */
    public static final String ROOT_NOT_CONFIGURED = "root_not_configured";
    /** The resolved path is, contains or lies in the Docker socket or its folder. */
    public static final String DOCKER_SOCKET = "docker_socket";
    /** The resolved path is, contains or lies in the agent's data directory. */
    public static final String DATA_DIR = "data_dir";
    /** A source no longer resolves to the path the container was created with. */
    public static final String MOUNT_CHANGED = "mount_changed";
    /**
     * (1.1) A folder from the allowed root down to the source's parent is not owned by root or the
     * agent, or is writable by group or others: someone else could swap a component after validation.
     */
    public static final String UNSAFE_ANCESTOR = "unsafe_ancestor";
    /**
     * (1.1) The source equals, contains or lies inside a source of another registered instance (its
     * current plan or a replace's prior plan); a container could then reach its neighbour's folders.
     */
    public static final String SOURCE_OVERLAPS_INSTANCE = "source_overlaps_instance";
    /** (1.1) The source equals, contains or lies inside another mount source of the same plan. */
    public static final String SOURCE_OVERLAPS_MOUNT = "source_overlaps_mount";
    /** check-disk: not 1 to 16 paths. */
    public static final String PATH_COUNT = "path_count";

    // --- ports (SPEC 8.4) ---
    /** A port name the template does not declare. */
    public static final String UNDECLARED_PORT = "undeclared_port";
    /** A port name requested twice. */
    public static final String DUPLICATE_PORT = "duplicate_port";
    /** containerPort differs from the template's for that name. */
    public static final String CONTAINER_PORT_MISMATCH = "container_port_mismatch";
    /** protocol is not {@code tcp}/{@code udp} or differs from the template's. */
    public static final String PROTOCOL_MISMATCH = "protocol_mismatch";
    /** hostPort outside the administrator's range (or outside 1..65535). */
    public static final String PORT_OUT_OF_RANGE = "port_out_of_range";
    /** hostIp not in the administrator's approved list. */
    public static final String HOST_IP_NOT_APPROVED = "host_ip_not_approved";
    /** The binding collides with another binding of the plan, a registered instance or Docker. */
    public static final String PORT_CONFLICT = "port_conflict";

    // --- resources (SPEC 8.5) ---
    /** A limit outside the template's bounds. */
    public static final String RESOURCE_OUT_OF_BOUNDS = "resource_out_of_bounds";
    /** A limit above the administrator's maximum. */
    public static final String OVER_ADMIN_LIMIT = "over_admin_limit";
    /** A CPU quota above the engine's CPUs, which the engine refuses at the create. */
    public static final String OVER_ENGINE_CPUS = "over_engine_cpus";

    // --- labels and user (SPEC 8.6, 5) ---
    /** More than 32 custom labels. */
    public static final String TOO_MANY_LABELS = "too_many_labels";
    /** A key in the reserved {@code dogama.}/{@code io.dogama.} namespace, any letter case. */
    public static final String RESERVED_LABEL = "reserved_label";
    /**
     * (1.1) A key in a namespace other host tools act on ({@code traefik.}, {@code com.docker.}, ...,
     * see SPEC section 5), any letter case.
     */
    public static final String FOREIGN_LABEL_NAMESPACE = "foreign_label_namespace";
    /** (1.1) The administrator's {@code customLabelPrefixes} is set and the key starts with none of them. */
    public static final String LABEL_PREFIX_NOT_ALLOWED = "label_prefix_not_allowed";
    /** Label key syntax. */
    public static final String LABEL_KEY = "label_key";
    /** Label value over 256 characters or not printable. */
    public static final String LABEL_VALUE = "label_value";
    /** Env key syntax. */
    public static final String ENV_KEY = "env_key";
    /** user is not {@code UID:GID} in decimal digits. */
    public static final String USER_NOT_NUMERIC = "user_not_numeric";
    /** UID or GID above 2147483647. */
    public static final String USER_OUT_OF_RANGE = "user_out_of_range";
    /** UID 0 or GID 0 (or an image whose USER may be either) while the administrator forbids it. */
    public static final String ROOT_USER_FORBIDDEN = "root_user_forbidden";
    /**
     * (1.1) The UID or GID is the group owning the Docker socket (or, with no user in the plan, the
     * image's USER may be in it): such a container is one mount away from host root.
     */
    public static final String FORBIDDEN_GROUP = "forbidden_group";

    // --- networks (SPEC 8.7) ---
    /** No network requested. */
    public static final String MISSING_NETWORK = "missing_network";
    /**
     * A network not in the administrator's approved list (host, none, bridge, container:* never are, nor a
     * name of lower-case hex digits alone, which the engine may resolve to another network by its ID).
     */
    public static final String NETWORK_NOT_APPROVED = "network_not_approved";
    /** An approved network the template does not allow. */
    public static final String NETWORK_NOT_ALLOWED = "network_not_allowed";
    /** A network requested twice. */
    public static final String DUPLICATE_NETWORK = "duplicate_network";

    private Rules() {
    }
}
