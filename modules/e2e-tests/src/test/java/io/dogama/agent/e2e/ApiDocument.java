package io.dogama.agent.e2e;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.OpenApi31;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * docs/openapi.yaml as the judge of every answer the end-to-end tests receive: the answer to a
 * documented operation must have a documented status, the documented media type and a body valid
 * against the documented schema (JSON Schema 2020-12, OpenAPI 3.1 dialect, by json-schema-validator);
 * an answer to anything undocumented (a negative test's unknown path, query string, method) must be
 * problem JSON valid against {@code #/components/schemas/Problem} whose status is its code's.
 */
final class ApiDocument {
    /** Where the document is registered for the validator; nothing is fetched from it. */
    static final String BASE = "urn:dogama:openapi";
    private static final Pattern ID = Pattern.compile("^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$");
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static volatile ApiDocument instance;

    private final JsonNode doc;
    private final String json;
    private final SchemaRegistry registry;
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

    private ApiDocument(Path file) {
        try {
            this.doc = YAMLMapper.builder().build().readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot read " + file, e);
        }
        this.json = JSON.writeValueAsString(doc);
        this.registry = SchemaRegistry.withDefaultDialect(OpenApi31.getInstance(),
                b -> b.schemas(Map.of(BASE, json)));
    }

    /** @return the repository's docs/openapi.yaml, read once */
    static ApiDocument get() {
        ApiDocument d = instance;
        if (d == null) {
            synchronized (ApiDocument.class) {
                d = instance;
                if (d == null) {
                    d = new ApiDocument(file());
                    instance = d;
                }
            }
        }
        return d;
    }

    static Path file() {
        return RepoLayout.root().resolve("docs/openapi.yaml");
    }

    JsonNode tree() {
        return doc;
    }

    /** @return the errors of the JSON text against the schema at the JSON pointer into the document */
    List<String> errors(String pointer, String body) {
        Schema schema = schemas.computeIfAbsent(pointer, p -> registry.getSchema(SchemaLocation.of(BASE + "#" + p)));
        JsonNode node;
        try {
            node = JSON.readTree(body);
        } catch (RuntimeException e) {
            return List.of("not JSON: " + e.getMessage());
        }
        List<String> out = new ArrayList<>();
        for (Error e : schema.validate(node)) {
            out.add(e.toString());
        }
        return out;
    }

    /**
     * Checks one answer; throws an {@link AssertionError} naming the request and the document's complaint.
     *
     * @param method      request method
     * @param rawPath     request path as sent
     * @param status      answer status
     * @param contentType answer Content-Type
     * @param body        answer body
     */
    void check(String method, String rawPath, int status, String contentType, String body) {
        String where = method + " " + rawPath + " -> " + status + " " + Json.abbreviate(body);
        String pointer = operation(method, rawPath);
        String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (pointer == null) {
            // Not a documented operation: only a problem can answer it.
            requireProblem(where, status, media, body, "/components/schemas/Problem");
            return;
        }
        JsonNode responses = at(pointer + "/responses");
        JsonNode response = responses.get(Integer.toString(status));
        if (response == null) {
            throw new AssertionError("docs/openapi.yaml: status " + status + " is not documented for " + method + " "
                    + rawPath + ": " + where);
        }
        String responsePointer = pointer + "/responses/" + status;
        if (response.has("$ref")) {
            responsePointer = response.get("$ref").asString().substring(1);
            response = at(responsePointer);
        }
        JsonNode content = response.get("content");
        if (content == null) {
            if (!body.isEmpty()) {
                throw new AssertionError("docs/openapi.yaml: " + status + " has no body, got one: " + where);
            }
            return;
        }
        if (!content.has(media)) {
            throw new AssertionError("docs/openapi.yaml: " + status + " is documented as " + names(content)
                    + ", answered '" + contentType + "': " + where);
        }
        String schemaPointer = responsePointer + "/content/" + escape(media) + "/schema";
        if (media.equals("application/problem+json")) {
            requireProblem(where, status, media, body, schemaPointer);
        } else if (media.equals("text/plain")) {
            // The metrics' text exposition: checked by promtool (MetricsE2ETest), not by a JSON schema.
            return;
        } else {
            List<String> errors = errors(schemaPointer, body);
            if (!errors.isEmpty()) {
                throw new AssertionError("docs/openapi.yaml: answer invalid against " + schemaPointer + ": " + errors
                        + ": " + where);
            }
        }
    }

    /**
     * Checks a request body the agent accepted (answered 2xx) against the operation's documented request
     * schema, so that the document never refuses what the agent takes.
     *
     * @param method  request method
     * @param rawPath request path as sent
     * @param body    request body, or null for none
     */
    void checkAccepted(String method, String rawPath, String body) {
        String pointer = operation(method, rawPath);
        if (pointer == null) {
            throw new AssertionError("docs/openapi.yaml: the agent accepted an undocumented " + method + " " + rawPath);
        }
        JsonNode requestBody = doc.at(pointer + "/requestBody");
        if (body == null || body.isEmpty()) {
            if (!requestBody.isMissingNode() && requestBody.path("required").asBoolean(false)) {
                throw new AssertionError("docs/openapi.yaml: the agent accepted " + method + " " + rawPath
                        + " without the body the document requires");
            }
            return;
        }
        if (requestBody.isMissingNode()) {
            throw new AssertionError("docs/openapi.yaml: the agent accepted a body the document does not name for "
                    + method + " " + rawPath);
        }
        String schemaPointer = pointer + "/requestBody/content/application~1json/schema";
        List<String> errors = errors(schemaPointer, body);
        if (!errors.isEmpty()) {
            throw new AssertionError("docs/openapi.yaml: the agent accepted a request body the document refuses ("
                    + schemaPointer + "): " + errors + ": " + method + " " + rawPath + " " + Json.abbreviate(body));
        }
    }

    private void requireProblem(String where, int status, String media, String body, String schemaPointer) {
        if (!media.equals("application/problem+json")) {
            throw new AssertionError("docs/openapi.yaml: an error is application/problem+json, got '" + media + "': " + where);
        }
        List<String> errors = errors(schemaPointer, body);
        if (!errors.isEmpty()) {
            throw new AssertionError("docs/openapi.yaml: problem invalid against " + schemaPointer + ": " + errors + ": "
                    + where);
        }
        String code = JSON.readTree(body).get("code").asString();
        JsonNode documented = at("/components/schemas/ProblemCode/x-dogama-status").get(code);
        if (documented == null || documented.asInt() != status) {
            throw new AssertionError("docs/openapi.yaml: code " + code + " is documented with status " + documented
                    + ": " + where);
        }
    }

    /** @return the JSON pointer of the operation the request addresses, or null when none is documented */
    String operation(String method, String rawPath) {
        if (rawPath.contains("?") || rawPath.contains("%")) {
            return null;
        }
        String[] segments = rawPath.split("/", -1);
        Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").properties().iterator();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> e = paths.next();
            String[] pattern = e.getKey().split("/", -1);
            if (pattern.length != segments.length) {
                continue;
            }
            boolean match = true;
            for (int i = 0; i < pattern.length && match; i++) {
                match = pattern[i].startsWith("{") ? ID.matcher(segments[i]).matches() : pattern[i].equals(segments[i]);
            }
            String m = method.toLowerCase(Locale.ROOT);
            if (match && e.getValue().has(m)) {
                return "/paths/" + escape(e.getKey()) + "/" + m;
            }
        }
        return null;
    }

    private JsonNode at(String pointer) {
        JsonNode n = doc.at(pointer);
        if (n == null || n.isMissingNode()) {
            throw new AssertionError("docs/openapi.yaml: nothing at " + pointer);
        }
        return n;
    }

    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.propertyNames().forEach(out::add);
        return out;
    }
}
