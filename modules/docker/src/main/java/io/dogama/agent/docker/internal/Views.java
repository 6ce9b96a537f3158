package io.dogama.agent.docker.internal;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Labels;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerState;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.HostConfigView;
import io.dogama.agent.docker.HostConfigView.MountView;
import io.dogama.agent.docker.HostConfigView.PortBindingView;
import io.dogama.agent.docker.ImageInfo;
import io.dogama.agent.docker.NetworkInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** Maps the engine's JSON answers to this module's typed views, checking every type on the way. */
final class Views {
    /** The engine's "never" instant (Go's zero time). */
    static final String ZERO_TIME = "0001-01-01T00:00:00Z";

    private Views() {
    }

    /** The states the engine reports a container in; nothing else reaches an API answer or a log. */
    static final Set<String> STATUSES = Set.of("created", "running", "paused", "restarting", "removing", "exited",
            "dead");
    /** RFC 3339 as the engine writes its times (fraction of up to 9 digits). */
    private static final Pattern TIME = Pattern.compile(
            "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$");

    /**
     * The labels a view keeps: the agent's own. An image's author chooses every other label of the image and of each
     * container made from it, as many as the engine takes (260,000 in 3.5 MB were accepted).
     */
    private static final Shape OWN_LABELS = Shape.members(Set.of(Labels.MANAGED, Labels.INSTANCE_ID,
            Labels.TEMPLATE_ID, Labels.TEMPLATE_VERSION, Labels.PLAN_DIGEST));

    /** What {@link #image} reads. The volumes are the image's author's, and kept whole: a check compares them. */
    static final Shape IMAGE = Shape.fields(Map.of("Id", Shape.WHOLE, "RepoDigests", Shape.WHOLE,
            "Config", Shape.fields(Map.of("User", Shape.WHOLE, "Volumes", Shape.WHOLE))));
    /** What {@link #network} reads (not its containers, which may be thousands). */
    static final Shape NETWORK = Shape.fields(Map.of("Id", Shape.WHOLE, "Name", Shape.WHOLE, "Driver", Shape.WHOLE,
            "Internal", Shape.WHOLE));
    /** What {@link #summary} reads. */
    static final Shape SUMMARY = Shape.fields(Map.of("Id", Shape.WHOLE, "Names", Shape.WHOLE, "Labels", OWN_LABELS,
            "State", Shape.WHOLE));
    /**
     * What {@link #container} reads. The host config is the agent's own create body as the engine took it, kept
     * whole; of the state, the four members read (its health log is the container's output).
     */
    static final Shape CONTAINER = Shape.fields(Map.of("Id", Shape.WHOLE, "Name", Shape.WHOLE, "Image", Shape.WHOLE,
            "Config", Shape.fields(Map.of("Labels", OWN_LABELS)),
            "State", Shape.fields(Map.of("Status", Shape.WHOLE, "Running", Shape.WHOLE, "StartedAt", Shape.WHOLE,
                    "ExitCode", Shape.WHOLE)),
            "HostConfig", Shape.WHOLE));

    static ImageInfo image(Tree t) throws DockerProtocolException {
        Tree config = t.objOrEmpty("Config");
        List<String> volumes = List.copyOf(config.objectMap("Volumes").keySet());
        for (String v : volumes) {
            // Compared with plan paths as a path: a NUL or a line break is no container path, and would reach
            // the validator's path parser (and from its failure the log) as engine text.
            if (!v.startsWith("/") || v.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new DockerProtocolException("inspect image: malformed volume path");
            }
        }
        return new ImageInfo(t.str("Id"), t.strings("RepoDigests"), config.str("User", ""), volumes);
    }

    static NetworkInfo network(Tree t) throws DockerProtocolException {
        return new NetworkInfo(t.str("Id"), t.str("Name"), t.str("Driver", ""), t.bool("Internal", false));
    }

    static ContainerSummary summary(Tree t) throws DockerProtocolException {
        List<String> names = new ArrayList<>();
        for (String n : t.strings("Names")) {
            names.add(stripSlash(n));
        }
        String id = t.str("Id");
        if (!Refs.ENGINE_ID.matcher(id).matches()) {
            // A listed container may be removed by this ID (a create's crash window): never a name or prefix.
            throw new DockerProtocolException("list containers: malformed container ID");
        }
        return new ContainerSummary(id, names, t.stringMap("Labels"), t.str("State", ""));
    }

    static ContainerInfo container(Tree t) throws DockerProtocolException {
        Tree config = t.objOrEmpty("Config");
        return new ContainerInfo(t.str("Id"), stripSlash(t.str("Name", "")), t.str("Image", ""),
                config.stringMap("Labels"), state(t.objOrEmpty("State")), hostConfig(t.objOrEmpty("HostConfig")));
    }

    static ContainerState state(Tree s) throws DockerProtocolException {
        String status = s.str("Status", "");
        if (!status.isEmpty() && !STATUSES.contains(status)) {
            // Shown in the instance's answer and logged by the reconciliation: only the engine's own words.
            throw new DockerProtocolException("inspect container: unknown status");
        }
        String started = s.str("StartedAt", ZERO_TIME);
        Optional<String> startedAt = started.isEmpty() || ZERO_TIME.equals(started) ? Optional.empty()
                : Optional.of(started);
        if (startedAt.isPresent() && !TIME.matcher(started).matches()) {
            throw new DockerProtocolException("inspect container: malformed start time");
        }
        Optional<Integer> exitCode = Optional.empty();
        if ("exited".equals(status) || "dead".equals(status)) {
            long code = s.num("ExitCode", 0);
            if (code < Integer.MIN_VALUE || code > Integer.MAX_VALUE) {
                throw new DockerProtocolException("exit code out of range");
            }
            exitCode = Optional.of((int) code);
        }
        return new ContainerState(status, s.bool("Running", false), startedAt, exitCode);
    }

    static HostConfigView hostConfig(Tree h) throws DockerProtocolException {
        List<MountView> mounts = new ArrayList<>();
        for (Tree m : h.objects("Mounts")) {
            mounts.add(new MountView(m.str("Type", ""), m.str("Source", ""), m.str("Target", ""),
                    m.bool("ReadOnly", false), m.objOrEmpty("BindOptions").str("Propagation", "")));
        }
        return new HostConfigView(h.bool("Privileged", false), h.str("NetworkMode", ""), h.strings("CapAdd"),
                h.strings("CapDrop"), h.strings("SecurityOpt"), h.strings("Binds"), mounts, h.stringMap("Tmpfs"),
                h.str("PidMode", ""), h.str("IpcMode", ""), h.str("UTSMode", ""), h.str("UsernsMode", ""),
                h.str("CgroupnsMode", ""), h.bool("ReadonlyRootfs", false), h.num("Memory", 0),
                h.num("MemorySwap", 0), h.num("NanoCpus", 0), h.num("PidsLimit", 0), h.bool("Init", false),
                portBindings(h));
    }

    /**
     * Fails closed on a binding the view cannot represent (an engine-chosen host port, SCTP): a
     * check must never pass because a binding was dropped.
     */
    private static List<PortBindingView> portBindings(Tree h) throws DockerProtocolException {
        List<PortBindingView> out = new ArrayList<>();
        for (Map.Entry<String, List<Tree>> e : h.objectListMap("PortBindings").entrySet()) {
            String key = e.getKey();
            int slash = key.indexOf('/');
            int containerPort = port(slash < 0 ? key : key.substring(0, slash));
            Optional<Protocol> proto = Protocol.parse(slash < 0 ? "tcp" : key.substring(slash + 1));
            if (proto.isEmpty()) {
                throw new DockerProtocolException("a port binding uses an unsupported protocol");
            }
            for (Tree b : e.getValue()) {
                int hostPort = port(b.str("HostPort", ""));
                out.add(new PortBindingView(containerPort, new HostPort(b.str("HostIp", ""), hostPort, proto.get())));
            }
        }
        return out;
    }

    private static int port(String s) throws DockerProtocolException {
        if (s.isEmpty() || s.length() > 5 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new DockerProtocolException("a port binding is not a fixed port");
        }
        int p = Integer.parseInt(s);
        if (p < 1 || p > 65535) {
            throw new DockerProtocolException("a port binding is not a fixed port");
        }
        return p;
    }

    private static String stripSlash(String n) {
        return n.startsWith("/") ? n.substring(1) : n;
    }
}
