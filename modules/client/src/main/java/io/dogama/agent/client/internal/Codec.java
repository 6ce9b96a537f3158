package io.dogama.agent.client.internal;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.client.ContainerStatus;
import io.dogama.agent.client.DiskSpace;
import io.dogama.agent.client.Health;
import io.dogama.agent.client.Instance;
import io.dogama.agent.client.InstanceState;
import io.dogama.agent.client.InstanceSummary;
import io.dogama.agent.client.Mount;
import io.dogama.agent.client.Plan;
import io.dogama.agent.client.Port;
import io.dogama.agent.client.PortBinding;
import io.dogama.agent.client.PortCheck;
import io.dogama.agent.client.Problem;
import io.dogama.agent.client.ProblemCode;
import io.dogama.agent.client.Protocol;
import io.dogama.agent.client.Resources;
import io.dogama.agent.client.Stats;
import io.dogama.agent.client.Violation;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bodies of SPEC section 2 as JSON, in both directions. Reading an answer tolerates fields it does not
 * know (a newer agent may add some) but not a missing field or a wrong type; reading a plan is strict
 * (the agent's plan schema is closed). Shape errors are {@link IllegalArgumentException}s naming the field.
 */
public final class Codec {
    private static final JSON JSON_RW = JSON.std.with(JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS);
    private static final Set<String> PLAN_FIELDS = Set.of("instanceId", "templateId", "templateVersion", "image",
            "command", "entrypoint", "capAdd", "env", "mounts", "ports", "resources", "user", "labels", "networks",
            "planDigest");
    /** Longest excerpt of an unrecognised error body kept for a log. */
    private static final int EXCERPT = 512;

    private Codec() {
    }

    // ------------------------------------------------------------------ writing

    /** @return the value (maps, lists, strings, numbers, booleans) as UTF-8 JSON */
    public static byte[] write(Object value) {
        try {
            return JSON_RW.asBytes(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("client: cannot write JSON", e);
        }
    }

    /** @return the plan as a map in SPEC order, absent optional fields left out */
    public static Map<String, Object> planMap(Plan p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("instanceId", p.instanceId());
        m.put("templateId", p.templateId());
        m.put("templateVersion", p.templateVersion());
        m.put("image", p.image());
        if (p.command() != null) {
            m.put("command", p.command());
        }
        if (p.entrypoint() != null) {
            m.put("entrypoint", p.entrypoint());
        }
        m.put("capAdd", p.capAdd());
        m.put("env", p.env());
        List<Object> mounts = new ArrayList<>();
        for (Mount x : p.mounts()) {
            Map<String, Object> mm = new LinkedHashMap<>();
            mm.put("source", x.source());
            mm.put("target", x.target());
            mm.put("readOnly", x.readOnly());
            mounts.add(mm);
        }
        m.put("mounts", mounts);
        List<Object> ports = new ArrayList<>();
        for (Port x : p.ports()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put("name", x.name());
            pm.put("containerPort", x.containerPort());
            pm.put("protocol", x.protocol().wire());
            pm.put("hostIp", x.hostIp());
            pm.put("hostPort", x.hostPort());
            ports.add(pm);
        }
        m.put("ports", ports);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("memoryBytes", p.resources().memoryBytes());
        r.put("nanoCpus", p.resources().nanoCpus());
        r.put("pidsLimit", p.resources().pidsLimit());
        m.put("resources", r);
        if (p.user() != null) {
            m.put("user", p.user());
        }
        m.put("labels", p.labels());
        m.put("networks", p.networks());
        if (p.planDigest() != null) {
            m.put("planDigest", p.planDigest());
        }
        return m;
    }

    /** @return the plan as JSON text */
    public static String planToJson(Plan p) {
        return new String(write(planMap(p)), StandardCharsets.UTF_8);
    }

    /** @return {@code {"hostIp","hostPort","protocol"}} */
    public static Map<String, Object> bindingMap(PortBinding b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hostIp", b.hostIp());
        m.put("hostPort", b.hostPort());
        m.put("protocol", b.protocol().wire());
        return m;
    }

    // ------------------------------------------------------------------ reading

    /** @return the JSON object in the bytes, which hold that one value and nothing after it */
    public static Map<String, Object> object(byte[] body) {
        countValues(body);
        try (com.fasterxml.jackson.core.JsonParser p = JSON_RW.getStreamingFactory().createParser(body)) {
            Object v = JSON_RW.anyFrom(p);
            if (p.nextToken() != null) {
                // anyFrom stops after the first value: without this, {"status":"ok"} {"x":1} read as healthy.
                throw new IllegalArgumentException("client: the body holds more than one JSON value");
            }
            return obj(v, "body");
        } catch (IOException e) {
            throw new IllegalArgumentException("client: the body is not JSON", e);
        }
    }

    /**
     * Most JSON values an answer may hold: a list of 10,000 instances (the agent's largest instance limit) holds
     * about 70,000. Counted before anything is built: an answer of empty objects within the byte limit would
     * otherwise become millions of maps in the caller's heap.
     */
    public static final int MAX_VALUES = 250_000;

    private static void countValues(byte[] body) {
        try (com.fasterxml.jackson.core.JsonParser p = JSON_RW.getStreamingFactory().createParser(body)) {
            int values = 0;
            com.fasterxml.jackson.core.JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t.isScalarValue() || t.isStructStart()) {
                    if (++values > MAX_VALUES) {
                        throw new IllegalArgumentException("client: the body holds more than " + MAX_VALUES
                                + " JSON values");
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("client: the body is not JSON", e);
        }
    }

    /** @return the plan in the text, strictly */
    public static Plan planFromJson(String json) {
        Map<String, Object> m;
        try {
            m = obj(JSON_RW.anyFrom(json), "plan");
        } catch (IOException e) {
            throw new IllegalArgumentException("client: the plan is not JSON", e);
        }
        for (String k : m.keySet()) {
            if (!PLAN_FIELDS.contains(k)) {
                throw new IllegalArgumentException("client: plan has an unknown field " + k);
            }
        }
        Plan.Builder b = Plan.builder().instanceId(str(m, "instanceId")).templateId(str(m, "templateId"))
                .templateVersion(str(m, "templateVersion")).image(str(m, "image"))
                .command(m.containsKey("command") ? strings(m, "command") : null)
                .entrypoint(m.containsKey("entrypoint") ? strings(m, "entrypoint") : null)
                .capAdd(strings(m, "capAdd")).env(stringMap(m, "env")).user(optStr(m, "user"))
                .labels(stringMap(m, "labels")).networks(strings(m, "networks")).planDigest(optStr(m, "planDigest"));
        for (Object o : list(m, "mounts")) {
            Map<String, Object> x = closed(obj(o, "mounts[]"), "mounts[]", "source", "target", "readOnly");
            b.mount(new Mount(str(x, "source"), str(x, "target"), bool(x, "readOnly")));
        }
        for (Object o : list(m, "ports")) {
            Map<String, Object> x = closed(obj(o, "ports[]"), "ports[]", "name", "containerPort", "protocol", "hostIp",
                    "hostPort");
            b.port(new Port(str(x, "name"), int32(x, "containerPort"), protocol(x), str(x, "hostIp"),
                    int32(x, "hostPort")));
        }
        Map<String, Object> r = closed(obj(m.get("resources"), "resources"), "resources", "memoryBytes", "nanoCpus",
                "pidsLimit");
        b.resources(new Resources(integer(r, "memoryBytes"), integer(r, "nanoCpus"), integer(r, "pidsLimit")));
        return b.build();
    }

    public static Health health(Map<String, Object> m) {
        return new Health(str(m, "status"));
    }

    public static InstanceSummary summary(Map<String, Object> m) {
        String state = str(m, "state");
        InstanceState s;
        try {
            s = InstanceState.valueOf(state);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("client: unknown state", e);
        }
        return new InstanceSummary(str(m, "instanceId"), str(m, "templateId"), str(m, "templateVersion"),
                str(m, "planDigest"), integer(m, "revision"), s);
    }

    public static Instance instance(Map<String, Object> m) {
        Map<String, Object> c = obj(m.get("container"), "container");
        Integer exit = c.containsKey("exitCode") ? int32(c, "exitCode") : null;
        return new Instance(summary(m), new ContainerStatus(str(c, "status"), optStr(c, "startedAt"), exit));
    }

    public static List<InstanceSummary> instances(Map<String, Object> m) {
        List<InstanceSummary> out = new ArrayList<>();
        for (Object o : list(m, "instances")) {
            out.add(summary(obj(o, "instances[]")));
        }
        return List.copyOf(out);
    }

    public static Stats stats(Map<String, Object> m) {
        return new Stats(number(m, "cpuPercent"), integer(m, "memoryBytes"), integer(m, "memoryLimitBytes"),
                integer(m, "pids"), integer(m, "networkRxBytes"), integer(m, "networkTxBytes"),
                integer(m, "blockReadBytes"), integer(m, "blockWriteBytes"));
    }

    public static List<DiskSpace> disk(Map<String, Object> m) {
        List<DiskSpace> out = new ArrayList<>();
        for (Object o : list(m, "paths")) {
            Map<String, Object> x = obj(o, "paths[]");
            out.add(new DiskSpace(str(x, "path"), integer(x, "totalBytes"), integer(x, "usableBytes")));
        }
        return List.copyOf(out);
    }

    public static List<PortCheck> ports(Map<String, Object> m) {
        List<PortCheck> out = new ArrayList<>();
        for (Object o : list(m, "bindings")) {
            Map<String, Object> x = obj(o, "bindings[]");
            out.add(new PortCheck(new PortBinding(str(x, "hostIp"), int32(x, "hostPort"), protocol(x)),
                    bool(x, "available")));
        }
        return List.copyOf(out);
    }

    /**
     * @param status the HTTP status of an error answer
     * @param body   its body (any media type)
     * @return the problem it carries, {@link Problem.Unrecognized} when it is not one this client knows
     */
    public static Problem problem(int status, byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        String excerpt = text.length() <= EXCERPT ? text : text.substring(0, EXCERPT);
        Map<String, Object> m;
        try {
            m = object(body);
        } catch (IllegalArgumentException e) {
            return new Problem.Unrecognized(status, null, excerpt);
        }
        String code = m.get("code") instanceof String s ? s : null;
        ProblemCode known = ProblemCode.fromWire(code);
        String title = m.get("title") instanceof String s ? s : "";
        if (known == null || known.status() != status) {
            return new Problem.Unrecognized(status, code, excerpt);
        }
        if (known != ProblemCode.PLAN_REJECTED) {
            return new Problem.Known(known, status, title);
        }
        List<Violation> vs = new ArrayList<>();
        try {
            for (Object o : list(m, "violations")) {
                Map<String, Object> v = obj(o, "violations[]");
                vs.add(new Violation(str(v, "field"), str(v, "rule")));
            }
        } catch (IllegalArgumentException e) {
            return new Problem.Unrecognized(status, code, excerpt);
        }
        return new Problem.PlanRejected(title, vs);
    }

    // ------------------------------------------------------------------ helpers

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Object v, String field) {
        if (!(v instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("client: " + field + " is not a JSON object");
        }
        return (Map<String, Object>) v;
    }

    private static Map<String, Object> closed(Map<String, Object> m, String field, String... keys) {
        Set<String> allowed = Set.of(keys);
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                throw new IllegalArgumentException("client: " + field + " has an unknown field " + k);
            }
        }
        return m;
    }

    private static List<?> list(Map<String, Object> m, String field) {
        if (!(m.get(field) instanceof List<?> l)) {
            throw new IllegalArgumentException("client: " + field + " is not a JSON array");
        }
        return l;
    }

    private static String str(Map<String, Object> m, String field) {
        if (!(m.get(field) instanceof String s)) {
            throw new IllegalArgumentException("client: " + field + " is not a string");
        }
        return s;
    }

    private static String optStr(Map<String, Object> m, String field) {
        return m.containsKey(field) ? str(m, field) : null;
    }

    private static boolean bool(Map<String, Object> m, String field) {
        if (!(m.get(field) instanceof Boolean b)) {
            throw new IllegalArgumentException("client: " + field + " is not a boolean");
        }
        return b;
    }

    private static long integer(Map<String, Object> m, String field) {
        Object v = m.get(field);
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger b && b.bitLength() < 64) {
            return b.longValue();
        }
        throw new IllegalArgumentException("client: " + field + " is not an integer");
    }

    /** An integer that must fit an {@code int}: never narrowed (4294987376 is no port 20080). */
    private static int int32(Map<String, Object> m, String field) {
        long v = integer(m, field);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("client: " + field + " is out of range");
        }
        return (int) v;
    }

    private static double number(Map<String, Object> m, String field) {
        Object v = m.get(field);
        if (v instanceof BigDecimal d) {
            return d.doubleValue();
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw new IllegalArgumentException("client: " + field + " is not a number");
    }

    private static Protocol protocol(Map<String, Object> m) {
        return Protocol.fromWire(str(m, "protocol"));
    }

    private static List<String> strings(Map<String, Object> m, String field) {
        List<String> out = new ArrayList<>();
        for (Object o : list(m, field)) {
            if (!(o instanceof String s)) {
                throw new IllegalArgumentException("client: " + field + " holds a non-string");
            }
            out.add(s);
        }
        return out;
    }

    private static Map<String, String> stringMap(Map<String, Object> m, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        obj(m.get(field), field).forEach((k, v) -> {
            if (!(v instanceof String s)) {
                throw new IllegalArgumentException("client: " + field + "." + k + " is not a string");
            }
            out.put(k, s);
        });
        return out;
    }
}
