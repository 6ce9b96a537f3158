package io.dogama.agent.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Deployment plans of the demo template (catalog/demo-http/1.0.0.json), as editable JSON trees. */
final class Plans {
    /** The template's pinned command (the catalog's; the plan may repeat it exactly). */
    static final List<String> DEMO_COMMAND = List.of("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data");
    static final long MEMORY = 33554432L;
    static final long NANO_CPUS = 200000000L;
    static final int PIDS = 64;

    private Plans() {
    }

    /** A plan as a mutable tree: edit it, then {@link #json()}. */
    static final class Plan {
        final Map<String, Object> tree;

        Plan(Map<String, Object> tree) {
            this.tree = tree;
        }

        String id() {
            return (String) tree.get("instanceId");
        }

        String json() {
            return Json.write(tree);
        }

        /** @return the instance's path in the API */
        String path() {
            return "/v1/instances/" + id();
        }

        /** @return a deep copy */
        Plan copy() {
            return new Plan(deepCopy(tree));
        }

        Plan with(String field, Object value) {
            Plan p = copy();
            p.tree.put(field, value);
            return p;
        }

        Plan without(String field) {
            Plan p = copy();
            p.tree.remove(field);
            return p;
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> map(String field) {
            return (Map<String, Object>) tree.get(field);
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> mount(int i) {
            return (Map<String, Object>) ((List<Object>) tree.get("mounts")).get(i);
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> port(int i) {
            return (Map<String, Object>) ((List<Object>) tree.get("ports")).get(i);
        }

        @SuppressWarnings("unchecked")
        List<Object> list(String field) {
            return (List<Object>) tree.get(field);
        }

        int hostPort() {
            return ((Number) port(0).get("hostPort")).intValue();
        }

        String digest() {
            return Jcs.planDigest(tree);
        }
    }

    static Plan demo(String instanceId, String source, int hostPort, String network) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("instanceId", instanceId);
        p.put("templateId", "demo-http");
        p.put("templateVersion", "1.0.0");
        p.put("image", "dogama/demo-http:1");
        p.put("capAdd", new ArrayList<>());
        p.put("env", new LinkedHashMap<>(Map.of("GREETING", "hello")));
        p.put("mounts", new ArrayList<>(List.of(new LinkedHashMap<>(Map.of("source", source, "target", "/data",
                "readOnly", false)))));
        Map<String, Object> port = new LinkedHashMap<>();
        port.put("name", "http");
        port.put("containerPort", 8080);
        port.put("protocol", "tcp");
        port.put("hostIp", "127.0.0.1");
        port.put("hostPort", hostPort);
        p.put("ports", new ArrayList<>(List.of(port)));
        p.put("resources", new LinkedHashMap<>(Map.of("memoryBytes", MEMORY, "nanoCpus", NANO_CPUS, "pidsLimit", PIDS)));
        p.put("user", "65534:65534");
        p.put("labels", new LinkedHashMap<>(Map.of("owner", "e2e")));
        p.put("networks", new ArrayList<>(List.of(network)));
        return new Plan(p);
    }

    @SuppressWarnings("unchecked")
    static <T> T deepCopy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, deepCopy(v)));
            return (T) out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(deepCopy(v)));
            return (T) out;
        }
        return value;
    }
}
