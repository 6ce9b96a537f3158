package io.dogama.agent.policy;

import io.dogama.agent.policy.internal.CatalogLoader;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The approved templates (SPEC section 7). The build copies the repository's {@code catalog/}
 * folder into this module's resources; {@link #embedded()} loads it. Every file is listed in
 * {@code catalog.lock} with its SHA-256, and a file whose bytes do not match, a template whose schema
 * is wrong, whose path does not match its ID and version, or which asks for anything the fixed
 * baseline forbids makes loading fail: the agent refuses to start.
 */
public final class Catalog {
    /** Resource folder (inside this module) holding the embedded catalog. */
    public static final String RESOURCE_DIR = "/io/dogama/agent/policy/catalog/";
    /** Name of the lock file: lines {@code <sha256 hex>  <id>/<version>.json}. */
    public static final String LOCK_FILE = "catalog.lock";
    /** Largest template file accepted, in bytes. */
    public static final int MAX_TEMPLATE_BYTES = 64 * 1024;
    /** Most template files in a catalog. */
    public static final int MAX_TEMPLATES = 1024;
    /**
     * Largest lock file accepted, in bytes: room for {@link #MAX_TEMPLATES} lines of at most 156 bytes (64 hex
     * digits, two spaces, a 63-character ID, {@code /}, a 20-character version, {@code .json}, LF), so that the
     * count, not the size, is what refuses a catalog too large.
     */
    public static final int MAX_LOCK_BYTES = MAX_TEMPLATES * 256;

    private final Map<String, Template> byKey;

    private Catalog(Map<String, Template> byKey) {
        this.byKey = byKey;
    }

    /**
     * Loads and validates the catalog embedded in this module.
     *
     * @return the catalog
     * @throws PolicyException naming the first invalid file and why (hash, schema, baseline)
     */
    public static Catalog embedded() throws PolicyException {
        return of(CatalogLoader.embedded());
    }

    /**
     * Loads and validates a catalog folder laid out like the repository's {@code catalog/}
     * ({@code catalog.lock} plus {@code <id>/<version>.json}); for tools and tests.
     *
     * @param dir the folder
     * @return the catalog
     * @throws PolicyException naming the first invalid file and why
     */
    public static Catalog load(Path dir) throws PolicyException {
        return of(CatalogLoader.directory(dir));
    }

    private static Catalog of(Collection<Template> templates) {
        Map<String, Template> m = new TreeMap<>();
        templates.forEach(t -> m.put(t.key(), t));
        return new Catalog(m);
    }

    /**
     * @param id      template ID
     * @param version template version
     * @return the template, or empty
     */
    public Optional<Template> find(String id, String version) {
        return Optional.ofNullable(byKey.get(id + "@" + version));
    }

    /**
     * @param id template ID
     * @return true if any version of it exists
     */
    public boolean hasId(String id) {
        return byKey.values().stream().anyMatch(t -> t.id().equals(id));
    }

    /** @return every template, sorted by ID then version text */
    public List<Template> templates() {
        return List.copyOf(byKey.values());
    }
}
