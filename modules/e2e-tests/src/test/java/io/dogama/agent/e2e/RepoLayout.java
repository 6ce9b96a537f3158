package io.dogama.agent.e2e;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository, the runtime image and the shared contract files are. */
final class RepoLayout {
    /** Overrides the folder of the shared contract (SPEC, test vectors); default: the repo's sibling {@code shared}. */
    static final String SHARED_ENV = "DOGAMA_SHARED_DIR";

    private RepoLayout() {
    }

    /** @return the repository root: the nearest folder above the working directory holding jlink/ and catalog/ */
    static Path root() {
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("jlink/pom.xml")) && Files.isRegularFile(p.resolve("catalog/catalog.lock"))) {
                return p;
            }
        }
        throw new AssertionError("e2e: no repository root (jlink/pom.xml and catalog/catalog.lock) above " + start);
    }

    /** @return the launcher of the runtime image; fails with the build command when it is missing */
    static Path agentLauncher() {
        Path bin = root().resolve("jlink/target/dogama-agent/bin/dogama-agent");
        if (!Files.isExecutable(bin)) {
            throw new AssertionError("e2e: the runtime image is missing (" + bin + "); build it first: "
                    + "flock /tmp/dogama-mvn.lock mvn -B -q -o -pl jlink -am -DskipTests install");
        }
        return bin;
    }

    /**
     * @return a test vector from the repository's copy ({@code test-vectors/}), checked byte for byte
     *         against the shared contract folder when that folder is present
     */
    static Path sharedVector(String name) {
        Path copy = root().resolve("test-vectors").resolve(name);
        if (!Files.isRegularFile(copy)) {
            throw new AssertionError("e2e: test vector " + copy + " is missing");
        }
        String env = System.getenv(SHARED_ENV);
        Path shared = (env != null ? Path.of(env) : root().resolveSibling("shared")).resolve("test-vectors").resolve(name);
        if (Files.isRegularFile(shared)) {
            try {
                if (Files.mismatch(copy, shared) != -1) {
                    throw new AssertionError("e2e: " + copy + " differs from the contract's " + shared);
                }
            } catch (java.io.IOException e) {
                throw new AssertionError("e2e: cannot compare " + copy + " with " + shared, e);
            }
        }
        return copy;
    }
}
