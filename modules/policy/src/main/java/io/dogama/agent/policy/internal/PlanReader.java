package io.dogama.agent.policy.internal;

import static io.dogama.agent.policy.PlanParser.MAX_ARGS;
import static io.dogama.agent.policy.PlanParser.MAX_BODY_BYTES;
import static io.dogama.agent.policy.PlanParser.MAX_CAP_ADD;
import static io.dogama.agent.policy.PlanParser.MAX_DEPTH;
import static io.dogama.agent.policy.PlanParser.MAX_ENV;
import static io.dogama.agent.policy.PlanParser.MAX_LABELS;
import static io.dogama.agent.policy.PlanParser.MAX_MOUNTS;
import static io.dogama.agent.policy.PlanParser.MAX_NETWORKS;
import static io.dogama.agent.policy.PlanParser.MAX_PORTS;
import static io.dogama.agent.policy.PlanParser.MAX_STRING_LENGTH;
import static io.dogama.agent.policy.internal.Fields.Presence.OPTIONAL;
import static io.dogama.agent.policy.internal.Fields.Presence.REQUIRED;

import io.dogama.agent.core.Outcome;
import io.dogama.agent.core.Plan;
import io.dogama.agent.core.ProblemCode;
import io.dogama.agent.core.Violation;
import io.dogama.agent.policy.ReplaceRequest;
import io.dogama.agent.policy.Rules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The closed plan schema of SPEC section 6. */
public final class PlanReader {
    static final Set<String> PLAN_FIELDS = Set.of("instanceId", "templateId", "templateVersion", "image", "command",
            "entrypoint", "capAdd", "env", "mounts", "ports", "resources", "user", "labels", "networks", "planDigest");
    private static final Set<String> MOUNT_FIELDS = Set.of("source", "target", "readOnly");
    private static final Set<String> PORT_FIELDS = Set.of("name", "containerPort", "protocol", "hostIp", "hostPort");
    private static final Set<String> RESOURCE_FIELDS = Set.of("memoryBytes", "nanoCpus", "pidsLimit");
    private static final Set<String> REPLACE_FIELDS = Set.of("plan", "expectedRevision");
    /** IDs, versions, names, digests, users and IPs are short; their syntax is checked by the validator. */
    private static final int MAX_SHORT = 256;

    private PlanReader() {
    }

    /**
     * @param json raw body
     * @return the plan or the failure
     */
    public static Outcome<Plan> parse(byte[] json) {
        List<Violation> out = new ArrayList<>();
        Json root;
        try {
            root = document(json, out);
        } catch (Json.Malformed e) {
            return Outcome.failed(ProblemCode.MALFORMED_REQUEST);
        }
        if (root == null) {
            return Outcome.rejected(out);
        }
        Plan plan = plan(root, Json.ROOT, out);
        return out.isEmpty() ? Outcome.ok(plan) : Outcome.rejected(out);
    }

    /**
     * @param json raw replace body
     * @return the request or the failure
     */
    public static Outcome<ReplaceRequest> parseReplace(byte[] json) {
        List<Violation> out = new ArrayList<>();
        Json root;
        try {
            root = document(json, out);
        } catch (Json.Malformed e) {
            return Outcome.failed(ProblemCode.MALFORMED_REQUEST);
        }
        if (root == null) {
            return Outcome.rejected(out);
        }
        Fields f = Fields.of(root, Json.ROOT, out, REPLACE_FIELDS);
        if (f == null) {
            return Outcome.rejected(out);
        }
        Plan plan = null;
        if (!f.has("plan")) {
            out.add(new Violation("plan", Rules.MISSING_FIELD));
        } else {
            plan = plan(f.raw("plan").orElseThrow(), "plan", out);
        }
        Long revision = f.integer("expectedRevision", REQUIRED);
        if (revision != null && revision < 0) {
            out.add(new Violation("expectedRevision", Rules.OUT_OF_RANGE));
        }
        return out.isEmpty() ? Outcome.ok(new ReplaceRequest(plan, revision)) : Outcome.rejected(out);
    }

    /** @return the root, or null with a violation when the body is over the limit */
    private static Json document(byte[] json, List<Violation> out) throws Json.Malformed {
        if (json.length > MAX_BODY_BYTES) {
            out.add(new Violation(Json.ROOT, Rules.TOO_LARGE));
            return null;
        }
        return Json.parse(json, MAX_DEPTH, out);
    }

    /** @return the plan, or null when a violation was recorded (also for earlier ones in {@code out}) */
    static Plan plan(Json value, String path, List<Violation> out) {
        int before = out.size();
        Fields f = Fields.of(value, path, out, PLAN_FIELDS);
        if (f == null) {
            return null;
        }
        String instanceId = f.string("instanceId", REQUIRED, MAX_SHORT);
        String templateId = f.string("templateId", REQUIRED, MAX_SHORT);
        String templateVersion = f.string("templateVersion", REQUIRED, MAX_SHORT);
        String image = f.string("image", REQUIRED, MAX_STRING_LENGTH);
        List<String> command = f.strings("command", OPTIONAL, MAX_ARGS, MAX_STRING_LENGTH);
        List<String> entrypoint = f.strings("entrypoint", OPTIONAL, MAX_ARGS, MAX_STRING_LENGTH);
        List<String> capAdd = f.strings("capAdd", REQUIRED, MAX_CAP_ADD, MAX_SHORT);
        Map<String, String> env = f.stringMap("env", REQUIRED, MAX_ENV, MAX_STRING_LENGTH);
        List<Plan.Mount> mounts = mounts(f, out);
        List<Plan.Port> ports = ports(f, out);
        Plan.Resources resources = resources(f);
        String user = f.string("user", OPTIONAL, MAX_SHORT);
        Map<String, String> labels = f.stringMap("labels", REQUIRED, MAX_LABELS, MAX_STRING_LENGTH);
        List<String> networks = f.strings("networks", REQUIRED, MAX_NETWORKS, MAX_SHORT);
        String planDigest = f.string("planDigest", OPTIONAL, MAX_SHORT);
        if (out.size() != before) {
            return null;
        }
        return new Plan(instanceId, templateId, templateVersion, image, Optional.ofNullable(command),
                Optional.ofNullable(entrypoint), capAdd, env, mounts, ports, resources, Optional.ofNullable(user),
                labels, networks, Optional.ofNullable(planDigest));
    }

    private static List<Plan.Mount> mounts(Fields f, List<Violation> out) {
        List<Fields> items = f.objects("mounts", REQUIRED, MAX_MOUNTS, MOUNT_FIELDS);
        if (items == null) {
            return null;
        }
        List<Plan.Mount> mounts = new ArrayList<>();
        for (Fields m : items) {
            String source = m.string("source", REQUIRED, MAX_STRING_LENGTH);
            String target = m.string("target", REQUIRED, MAX_STRING_LENGTH);
            Boolean readOnly = m.bool("readOnly", REQUIRED);
            if (source != null && target != null && readOnly != null) {
                mounts.add(new Plan.Mount(source, target, readOnly));
            }
        }
        return mounts;
    }

    private static List<Plan.Port> ports(Fields f, List<Violation> out) {
        List<Fields> items = f.objects("ports", REQUIRED, MAX_PORTS, PORT_FIELDS);
        if (items == null) {
            return null;
        }
        List<Plan.Port> ports = new ArrayList<>();
        for (Fields p : items) {
            String name = p.string("name", REQUIRED, MAX_SHORT);
            Long containerPort = p.integer("containerPort", REQUIRED);
            String protocol = p.string("protocol", REQUIRED, MAX_SHORT);
            String hostIp = p.string("hostIp", REQUIRED, MAX_SHORT);
            Long hostPort = p.integer("hostPort", REQUIRED);
            if (name != null && containerPort != null && protocol != null && hostIp != null && hostPort != null) {
                ports.add(new Plan.Port(name, containerPort, protocol, hostIp, hostPort));
            }
        }
        return ports;
    }

    private static Plan.Resources resources(Fields f) {
        Fields r = f.object("resources", REQUIRED, RESOURCE_FIELDS);
        if (r == null) {
            return null;
        }
        Long memory = r.integer("memoryBytes", REQUIRED);
        Long cpus = r.integer("nanoCpus", REQUIRED);
        Long pids = r.integer("pidsLimit", REQUIRED);
        return memory == null || cpus == null || pids == null ? null : new Plan.Resources(memory, cpus, pids);
    }
}
