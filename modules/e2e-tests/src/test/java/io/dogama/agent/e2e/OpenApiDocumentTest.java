package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * docs/openapi.yaml is a valid OpenAPI 3.1 document (swagger-parser's OpenAPI 3.1 parser reports
 * nothing), every schema in it is a valid JSON Schema 2020-12 schema (the meta-schema bundled with
 * json-schema-validator), and the schemas catch what they must (so the e2e answer checks are not vacuous).
 */
class OpenApiDocumentTest {
    @Test
    void isAValidOpenApi31Document() throws Exception {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        options.setValidateInternalRefs(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(Files.readString(ApiDocument.file()), null, options);
        assertEquals(List.of(), result.getMessages(), "swagger-parser's complaints");
        OpenAPI api = result.getOpenAPI();
        assertNotNull(api);
        assertEquals("3.1.0", api.getOpenapi());
        assertTrue(api.getSpecVersion().name().endsWith("31"), api.getSpecVersion()::toString);
        assertEquals(13, api.getPaths().values().stream().mapToInt(p -> p.readOperations().size()).sum());
        assertEquals(3, api.getComponents().getSecuritySchemes().size());
        assertTrue(api.getComponents().getSecuritySchemes().get("DogamaSignature").getDescription()
                .contains("DOGAMA-HMAC-V1"), "the canonical string is described");
    }

    @Test
    void everySchemaIsAValidJsonSchema202012() {
        Schema meta = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        JsonNode schemas = ApiDocument.get().tree().at("/components/schemas");
        List<String> names = new ArrayList<>();
        schemas.propertyNames().forEach(names::add);
        assertTrue(names.size() > 20, names::toString);
        for (String name : names) {
            assertEquals(List.of(), meta.validate(schemas.get(name)), name);
        }
    }

    @Test
    void theClientKnowsExactlyTheDocumentedCodesAndStates() {
        JsonNode statuses = ApiDocument.get().tree().at("/components/schemas/ProblemCode/x-dogama-status");
        java.util.Map<String, Integer> documented = new java.util.TreeMap<>();
        statuses.properties().forEach(e -> documented.put(e.getKey(), e.getValue().asInt()));
        java.util.Map<String, Integer> client = new java.util.TreeMap<>();
        for (io.dogama.agent.client.ProblemCode c : io.dogama.agent.client.ProblemCode.values()) {
            client.put(c.wire(), c.status());
        }
        assertEquals(documented, client, "io.dogama.agent.client.ProblemCode and docs/openapi.yaml");
        List<String> states = new ArrayList<>();
        ApiDocument.get().tree().at("/components/schemas/State/enum").forEach(n -> states.add(n.asString()));
        assertEquals(states, java.util.Arrays.stream(io.dogama.agent.client.InstanceState.values()).map(Enum::name).toList());
    }

    @Test
    void theSchemasRejectWhatTheAgentMustNeverSend() {
        ApiDocument d = ApiDocument.get();
        String instance = "{\"instanceId\":\"demo-1\",\"templateId\":\"demo-http\",\"templateVersion\":\"1.0.0\","
                + "\"planDigest\":\"sha256:" + "ab".repeat(32) + "\",\"revision\":0,\"state\":\"CREATED\","
                + "\"container\":{\"status\":\"created\"}}";
        assertEquals(List.of(), d.errors("/components/schemas/Instance", instance));
        assertFalse(d.errors("/components/schemas/Instance",
                instance.replace("{\"status\":\"created\"}", "{\"status\":\"created\",\"id\":\"" + "cd".repeat(32) + "\"}"))
                .isEmpty(), "a container ID is not part of the instance");
        assertFalse(d.errors("/components/schemas/Instance", instance.replace("CREATED", "NEW")).isEmpty());
        assertFalse(d.errors("/components/schemas/Summary", instance).isEmpty(), "a summary has no container");
        String problem = "{\"type\":\"urn:dogama:problem:revision_conflict\",\"title\":\"t\",\"status\":409,"
                + "\"code\":\"revision_conflict\"}";
        assertEquals(List.of(), d.errors("/components/schemas/Problem", problem));
        assertFalse(d.errors("/components/schemas/Problem", problem.replace("}", ",\"detail\":\"/var/run/docker.sock\"}"))
                .isEmpty(), "no free-text detail");
        assertFalse(d.errors("/components/schemas/Problem", problem.replace("}", ",\"violations\":[{\"field\":\"a\",\"rule\":\"b\"}]}"))
                .isEmpty(), "violations only with plan_rejected");
        String rejected = "{\"type\":\"urn:dogama:problem:plan_rejected\",\"title\":\"t\",\"status\":422,\"code\":\"plan_rejected\"}";
        assertFalse(d.errors("/components/schemas/Problem", rejected).isEmpty(), "plan_rejected always has violations");
        // the answer check itself
        d.check("GET", "/v1/instances/demo-1", 200, "application/json", instance);
        assertThrows(AssertionError.class, () -> d.check("GET", "/v1/instances/demo-1", 201, "application/json", instance));
        assertThrows(AssertionError.class, () -> d.check("GET", "/v1/instances/demo-1", 409, "application/problem+json",
                problem.replace("revision_conflict", "busy")));
        assertThrows(AssertionError.class, () -> d.check("DELETE", "/v1/instances/demo-1", 204, "", "{}"));
        d.check("GET", "/v1/containers/json", 401, "application/problem+json",
                problem.replace("revision_conflict", "unauthenticated").replace("409", "401"));
        assertThrows(AssertionError.class, () -> d.check("GET", "/v1/containers/json", 200, "application/json", "{}"));
        // requests: what the agent accepts must be what the document describes
        String plan = Plans.demo("demo-1", "/srv/dogama/instances/demo-1/data", 20080, "dogama-dev").json();
        d.checkAccepted("POST", "/v1/instances", plan);
        d.checkAccepted("PUT", "/v1/instances/demo-1", "{\"plan\":" + plan + ",\"expectedRevision\":0}");
        d.checkAccepted("POST", "/v1/instances/demo-1/stop", null);
        d.checkAccepted("POST", "/v1/instances/demo-1/stop", "{}");
        assertThrows(AssertionError.class, () -> d.checkAccepted("POST", "/v1/instances", plan.replace("{", "{\"x\":1,")));
        assertThrows(AssertionError.class, () -> d.checkAccepted("POST", "/v1/instances", null));
        assertThrows(AssertionError.class, () -> d.checkAccepted("POST", "/v1/instances/demo-1/start", "{}"));
        assertThrows(AssertionError.class, () -> d.checkAccepted("GET", "/v1/nothing", null));
        assertEquals("/paths/~1v1~1instances~1{id}~1stop/post", d.operation("POST", "/v1/instances/demo-1/stop"));
        assertEquals(null, d.operation("POST", "/v1/instances/Demo/stop"));
        assertEquals(null, d.operation("GET", "/v1/health?x=1"));
    }
}
