package io.dogama.agent.docker.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.ContainerSpec.BindMount;
import io.dogama.agent.core.ContainerSpec.PublishedPort;
import io.dogama.agent.core.ContainerSpec.TmpfsMount;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns an approved {@link ContainerSpec} into the engine's create JSON with the fixed baseline of
 * SPEC section 8. This is the only place a container's configuration is written. Fields are
 * written in a fixed order, so the same spec always gives the same bytes.
 *
 * <p>What is deliberately never written: {@code Binds}, {@code Volumes}, {@code VolumesFrom},
 * {@code Devices}, {@code DeviceRequests}, {@code DeviceCgroupRules}, {@code Sysctls},
 * {@code Links}, {@code ExtraHosts}, {@code Runtime}, {@code CgroupParent},
 * {@code OomKillDisable}, {@code GroupAdd}, {@code Ulimits}, {@code OomScoreAdj},
 * {@code Annotations}, {@code Isolation}, {@code StorageOpt}, {@code PublishAllPorts},
 * {@code Dns*}, {@code MaskedPaths}, {@code ReadonlyPaths} (left to the engine's defaults), and in
 * the endpoint config any address, MAC or alias.
 */
final class CreateBody {
    /** Log file size cap of the json-file driver. */
    static final String LOG_MAX_SIZE = "10m";
    /** Log files kept by the json-file driver. */
    static final String LOG_MAX_FILE = "3";
    /** The only security option, always set. */
    static final String NO_NEW_PRIVILEGES = "no-new-privileges:true";
    /** Options every tmpfs gets before its size. */
    static final String TMPFS_OPTIONS = "rw,noexec,nosuid,nodev";

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final Pattern USER = Pattern.compile("^[0-9]{1,10}:[0-9]{1,10}$");
    private static final Pattern CAPABILITY = Pattern.compile("^(CAP_)?[A-Z][A-Z_]{1,31}$");
    private static final Pattern SIGNAL = Pattern.compile("^(SIG[A-Z0-9+-]{1,16}|[0-9]{1,2})$");
    private static final Pattern ENV_KEY = Pattern.compile("^[A-Za-z_][A-Za-z0-9_.-]{0,127}$");

    private CreateBody() {
    }

    /**
     * @return the JSON body of {@code POST /containers/create}
     * @throws IllegalArgumentException if the spec fails a defensive check (the policy module
     *                                  should have refused it already)
     */
    static byte[] json(ContainerSpec s) {
        check(s);
        ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            if (s.user().isPresent()) {
                g.writeStringField("User", s.user().get());
            }
            g.writeArrayFieldStart("Env");
            for (Map.Entry<String, String> e : s.env().entrySet()) {
                g.writeString(e.getKey() + "=" + e.getValue());
            }
            g.writeEndArray();
            if (s.command().isPresent()) {
                stringArray(g, "Cmd", s.command().get());
            }
            if (s.entrypoint().isPresent()) {
                stringArray(g, "Entrypoint", s.entrypoint().get());
            }
            g.writeStringField("Image", s.image());
            if (s.workingDir().isPresent()) {
                g.writeStringField("WorkingDir", s.workingDir().get());
            }
            g.writeObjectFieldStart("Labels");
            for (Map.Entry<String, String> e : s.labels().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            if (s.stopSignal().isPresent()) {
                g.writeStringField("StopSignal", s.stopSignal().get());
            }
            Map<String, List<PublishedPort>> ports = portsByKey(s.ports());
            g.writeObjectFieldStart("ExposedPorts");
            for (String key : ports.keySet()) {
                g.writeObjectFieldStart(key);
                g.writeEndObject();
            }
            g.writeEndObject();
            hostConfig(g, s, ports);
            g.writeObjectFieldStart("NetworkingConfig");
            g.writeObjectFieldStart("EndpointsConfig");
            g.writeObjectFieldStart(s.networks().getFirst());
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            // Writing to a byte array cannot fail for I/O reasons.
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** @return the body of {@code POST /networks/{id}/connect}: the container, no endpoint settings */
    static byte[] connectJson(String containerId) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("Container", containerId);
            g.writeObjectFieldStart("EndpointConfig");
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** @return the URL-decoded value of the {@code filters} query for one label */
    static String labelFilter(String key, String value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("label");
            g.writeString(key + "=" + value);
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void hostConfig(JsonGenerator g, ContainerSpec s, Map<String, List<PublishedPort>> ports)
            throws IOException {
        g.writeObjectFieldStart("HostConfig");
        g.writeStringField("NetworkMode", s.networks().getFirst());
        g.writeObjectFieldStart("PortBindings");
        for (Map.Entry<String, List<PublishedPort>> e : ports.entrySet()) {
            g.writeArrayFieldStart(e.getKey());
            for (PublishedPort p : e.getValue()) {
                g.writeStartObject();
                g.writeStringField("HostIp", p.host().hostIp());
                g.writeStringField("HostPort", Integer.toString(p.host().hostPort()));
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
        g.writeObjectFieldStart("RestartPolicy");
        g.writeStringField("Name", switch (s.restartPolicy().mode()) {
            case NO -> "no";
            case UNLESS_STOPPED -> "unless-stopped";
            case ON_FAILURE -> "on-failure";
        });
        g.writeNumberField("MaximumRetryCount", s.restartPolicy().maxRetries());
        g.writeEndObject();
        g.writeObjectFieldStart("LogConfig");
        g.writeStringField("Type", "json-file");
        g.writeObjectFieldStart("Config");
        g.writeStringField("max-size", LOG_MAX_SIZE);
        g.writeStringField("max-file", LOG_MAX_FILE);
        g.writeEndObject();
        g.writeEndObject();
        g.writeBooleanField("Privileged", false);
        g.writeBooleanField("Init", true);
        stringArray(g, "CapDrop", List.of("ALL"));
        stringArray(g, "CapAdd", s.capAdd());
        stringArray(g, "SecurityOpt", List.of(NO_NEW_PRIVILEGES));
        g.writeBooleanField("ReadonlyRootfs", s.readOnlyRootfs());
        g.writeStringField("IpcMode", "private");
        g.writeStringField("PidMode", "");
        g.writeStringField("UTSMode", "");
        g.writeStringField("UsernsMode", "");
        g.writeStringField("CgroupnsMode", "private");
        g.writeNumberField("Memory", s.resources().memoryBytes());
        g.writeNumberField("MemorySwap", s.resources().memoryBytes());
        g.writeNumberField("NanoCpus", s.resources().nanoCpus());
        g.writeNumberField("PidsLimit", s.resources().pidsLimit());
        g.writeArrayFieldStart("Mounts");
        for (BindMount m : s.mounts()) {
            g.writeStartObject();
            g.writeStringField("Type", "bind");
            g.writeStringField("Source", m.source());
            g.writeStringField("Target", m.target());
            g.writeBooleanField("ReadOnly", m.readOnly());
            g.writeObjectFieldStart("BindOptions");
            g.writeStringField("Propagation", "rprivate");
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("Tmpfs");
        for (TmpfsMount t : s.tmpfs()) {
            g.writeStringField(t.target(), TMPFS_OPTIONS + ",size=" + t.sizeBytes());
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void stringArray(JsonGenerator g, String name, List<String> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    /** Groups bindings by {@code port/protocol}, in a fixed order. */
    private static Map<String, List<PublishedPort>> portsByKey(List<PublishedPort> ports) {
        Map<String, List<PublishedPort>> byKey = new TreeMap<>();
        for (PublishedPort p : ports) {
            byKey.computeIfAbsent(p.containerPort() + "/" + p.host().protocol().wire(), k -> new ArrayList<>()).add(p);
        }
        return byKey;
    }

    /** Defensive checks: the policy module decides; this module still refuses what it must never send. */
    static void check(ContainerSpec s) {
        Refs.container(s.name());
        Refs.pinnedImage(s.image());
        Set<String> networks = new HashSet<>();
        for (String n : s.networks()) {
            Refs.approvedNetwork(n);
            if (!networks.add(n)) {
                throw new IllegalArgumentException("docker: a network is listed twice");
            }
        }
        for (Map.Entry<String, String> e : s.env().entrySet()) {
            if (!ENV_KEY.matcher(e.getKey()).matches() || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("docker: invalid environment entry");
            }
        }
        if (s.user().isPresent() && !USER.matcher(s.user().get()).matches()) {
            throw new IllegalArgumentException("docker: user must be numeric UID:GID");
        }
        s.workingDir().ifPresent(w -> cleanAbsolute(w, "working directory"));
        if (s.stopSignal().isPresent() && !SIGNAL.matcher(s.stopSignal().get()).matches()) {
            throw new IllegalArgumentException("docker: invalid stop signal");
        }
        for (String c : s.capAdd()) {
            String bare = c.startsWith("CAP_") ? c.substring(4) : c;
            if (!CAPABILITY.matcher(c).matches() || "ALL".equals(bare.toUpperCase(Locale.ROOT))) {
                throw new IllegalArgumentException("docker: invalid capability to add");
            }
        }
        for (BindMount m : s.mounts()) {
            cleanAbsolute(m.source(), "mount source");
            cleanAbsolute(m.target(), "mount target");
            if ("/".equals(m.source()) || "/".equals(m.target())) {
                throw new IllegalArgumentException("docker: a mount may not be the root");
            }
        }
        for (TmpfsMount t : s.tmpfs()) {
            cleanAbsolute(t.target(), "tmpfs target");
            if ("/".equals(t.target()) || t.target().indexOf(',') >= 0 || t.target().indexOf(':') >= 0) {
                throw new IllegalArgumentException("docker: invalid tmpfs target");
            }
        }
        for (PublishedPort p : s.ports()) {
            String ip = p.host().hostIp();
            if (!ip.matches("^[0-9a-fA-F:.]{2,45}$")) {
                throw new IllegalArgumentException("docker: host IP must be a literal address");
            }
        }
        for (Map.Entry<String, String> e : s.labels().entrySet()) {
            if (e.getKey().isEmpty() || !Refs.printable(e.getKey()) || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("docker: invalid label");
            }
        }
    }

    private static void cleanAbsolute(String path, String what) {
        if (!path.startsWith("/") || path.indexOf('\0') >= 0 || !Refs.printable(path)) {
            throw new IllegalArgumentException("docker: " + what + " must be an absolute path");
        }
        for (String seg : path.substring(1).split("/", -1)) {
            if (".".equals(seg) || "..".equals(seg) || (seg.isEmpty() && path.length() > 1)) {
                throw new IllegalArgumentException("docker: " + what + " must be a clean absolute path");
            }
        }
    }
}
