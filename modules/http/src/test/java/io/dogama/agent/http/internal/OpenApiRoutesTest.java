package io.dogama.agent.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.core.ProblemCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/openapi.yaml against the agent's one route table ({@link RouteTable#ROUTES}) and its problem
 * codes ({@link ProblemCode}): a route missing from the document, a documented route that does not
 * exist, a body rule the document states differently, or a problem code or status it names wrongly
 * fails here.
 */
class OpenApiRoutesTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    private static Map<String, Object> doc;

    @BeforeAll
    static void read() throws Exception {
        String location = System.getProperty("dogama.openapi", "../../docs/openapi.yaml");
        Path file = Path.of(location);
        assertTrue(Files.isRegularFile(file), "no API document at " + file.toAbsolutePath());
        doc = JSON.builder(new YAMLFactory()).build().mapFrom(Files.readString(file));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    /** @return "METHOD pattern" to the operation, for every operation of the document */
    private static Map<String, Map<String, Object>> documented() {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        map(doc.get("paths")).forEach((path, item) -> map(item).forEach((key, op) -> {
            if (METHODS.contains(key)) {
                out.put(key.toUpperCase(Locale.ROOT) + " " + path, map(op));
            }
        }));
        return out;
    }

    @Test
    void theDocumentNamesExactlyTheRoutesOfTheRouteTable() {
        Set<String> table = new TreeSet<>();
        for (RouteTable.Route r : RouteTable.ROUTES) {
            table.add(r.method() + " " + r.pattern());
        }
        assertTrue(table.size() >= 12, "the route table lost routes: " + table);
        assertEquals(table, documented().keySet(),
                "docs/openapi.yaml and RouteTable disagree (left: the table, right: the document)");
    }

    @Test
    void requestBodiesAreDocumentedAsTheRouteTableTakesThem() {
        Map<String, Map<String, Object>> ops = documented();
        for (RouteTable.Route r : RouteTable.ROUTES) {
            Map<String, Object> op = ops.get(r.method() + " " + r.pattern());
            Object body = op.get("requestBody");
            String where = r.method() + " " + r.pattern();
            switch (r.body()) {
                case NONE -> assertEquals(null, body, where + " takes no body");
                case JSON -> assertEquals(true, map(body).get("required"), where + " requires a body");
                case OPTIONAL_JSON -> assertEquals(false, map(body).get("required"), where + " takes an optional body");
            }
            if (body != null) {
                assertEquals(Set.of("application/json"), map(map(body).get("content")).keySet(), where);
            }
            assertTrue(op.get("operationId") instanceof String, where + " has an operationId");
        }
    }

    @Test
    void everyProblemCodeIsDocumentedWithItsStatus() {
        Map<String, Object> schema = map(map(map(doc.get("components")).get("schemas")).get("ProblemCode"));
        Map<String, Object> expected = new LinkedHashMap<>();
        for (ProblemCode c : ProblemCode.values()) {
            expected.put(c.code(), c.status());
        }
        assertEquals(List.copyOf(expected.keySet()), schema.get("enum"), "the codes, in the order of ProblemCode");
        assertEquals(expected, schema.get("x-dogama-status"));
        Set<Integer> statuses = new TreeSet<>();
        expected.values().forEach(v -> statuses.add((Integer) v));
        Map<String, Object> problem = map(map(map(doc.get("components")).get("schemas")).get("Problem"));
        assertEquals(List.copyOf(statuses), map(map(problem.get("properties")).get("status")).get("enum"));
    }

    @Test
    void everyStatusOfAnOperationNamesOnlyCodesOfThatStatus() {
        Map<String, Object> responses = map(map(doc.get("components")).get("responses"));
        responses.forEach((name, r) -> {
            Map<String, Object> content = map(map(r).get("content"));
            Map<String, Object> schema = map(map(content.get("application/problem+json")).get("schema"));
            Map<String, Object> narrow = map(((List<?>) schema.get("allOf")).get(1));
            Map<String, Object> props = map(narrow.get("properties"));
            int status = (Integer) map(props.get("status")).get("const");
            Map<String, Object> code = map(props.get("code"));
            List<?> codes = code.containsKey("const") ? List.of(code.get("const")) : (List<?>) code.get("enum");
            for (Object c : codes) {
                ProblemCode pc = ProblemCode.valueOf(((String) c).toUpperCase(Locale.ROOT));
                assertEquals(pc.status(), status, name + " names " + c);
            }
        });
    }
}
