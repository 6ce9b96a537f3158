package io.dogama.agent.policy;

import static io.dogama.agent.policy.Fixture.list;
import static io.dogama.agent.policy.Fixture.map;

import io.dogama.agent.policy.internal.CatalogLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes real catalog folders (files plus lock) for tests that need templates other than demo-http. */
final class TestCatalog {
    private TestCatalog() {
    }

    /** @return the demo-http 1.0.0 template as a mutable map, field for field as in catalog/ */
    static Map<String, Object> demoTemplate() {
        Map<String, Object> t = map("id", "demo-http", "version", "1.0.0", "image", "dogama/demo-http:1",
                "imageId", Fixture.DEMO_IMAGE_ID,
                "command", list("/bin/httpd", "-f", "-v", "-p", "8080", "-h", "/data"), "entrypoint", null,
                "capAdd", list(),
                "env", map("GREETING", map("pattern", "^[A-Za-z0-9 ,.!?-]{0,64}$", "required", false)),
                "mounts", map("/data", map("root", "instances", "readOnly", false)),
                "ports", map("http", map("containerPort", 8080, "protocol", "tcp")),
                "resources", map("memoryBytes", map("min", 16777216, "max", 536870912),
                        "nanoCpus", map("min", 100000000, "max", 1000000000),
                        "pidsLimit", map("min", 32, "max", 256)),
                "readOnlyRootfs", true, "tmpfs", map("/tmp", map("sizeBytes", 16777216)),
                "networks", map("anyApproved", true), "restartPolicy", map("mode", "no"));
        return t;
    }

    /**
     * Writes {@code <id>/<version>.json} for each template and a matching lock.
     *
     * @return the folder
     */
    @SafeVarargs
    static Path write(Path dir, Map<String, Object>... templates) throws IOException {
        Files.createDirectories(dir);
        StringBuilder lock = new StringBuilder("# test catalog\n");
        for (Map<String, Object> t : templates) {
            String rel = t.get("id") + "/" + t.get("version") + ".json";
            byte[] bytes = Fixture.json(t);
            Files.createDirectories(dir.resolve(rel).getParent());
            Files.write(dir.resolve(rel), bytes);
            lock.append(CatalogLock.hash(bytes)).append("  ").append(rel).append('\n');
        }
        Files.writeString(dir.resolve(Catalog.LOCK_FILE), lock);
        return dir;
    }

    @SafeVarargs
    static Catalog load(Path dir, Map<String, Object>... templates) throws IOException, PolicyException {
        return Catalog.load(write(dir, templates));
    }
}
