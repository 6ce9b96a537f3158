package io.dogama.agent.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pull through the client from a real local registry (Debian's docker-registry, started by
 * {@code scripts/registry} on loopback), checked against the digest the registry itself reports.
 */
class PullIntegrationTest {
    static DockerEngine engine;
    static String registry;
    /** A repository of its own per run, so parallel runs never remove each other's tags. */
    static String repo;

    @BeforeAll
    static void setUp() throws DockerException {
        TestDocker.demoImageId();
        registry = TestDocker.run(TestDocker.repoRoot().resolve("scripts/registry").toString());
        assertTrue(registry.matches("^127\\.0\\.0\\.1:[0-9]{1,5}$"), "scripts/registry printed " + registry);
        repo = registry + "/dogama-test/" + TestDocker.randomName();
        // Set-up only: the CLI pushes, the client under test pulls.
        TestDocker.cli("tag", TestDocker.DEMO_IMAGE, repo + ":1");
        TestDocker.cli("push", repo + ":1");
        engine = DockerEngine.connect(TestDocker.socket());
    }

    @AfterAll
    static void tearDown() {
        if (engine != null) {
            engine.close();
        }
        // Untag only: the demo image itself stays (it is still tagged dogama/demo-http:1).
        TestDocker.tryRun(TestDocker.dockerCli(), "rmi", repo + ":1");
    }

    /** The manifest digest as the registry reports it (curl: the client under test is not used). */
    static String registryDigest() {
        String path = repo.substring(registry.length() + 1);
        String headers = TestDocker.run("curl", "-sfI", "--max-time", "10", "-H",
                "Accept: application/vnd.docker.distribution.manifest.v2+json",
                "http://" + registry + "/v2/" + path + "/manifests/1");
        for (String line : headers.split("\r?\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("docker-content-digest:")) {
                return line.substring(line.indexOf(':') + 1).strip();
            }
        }
        return fail("the registry sent no Docker-Content-Digest: " + headers);
    }

    @Test
    void pullRecordsTheRegistryDigest() throws Exception {
        String digest = registryDigest();
        assertTrue(digest.matches("^sha256:[a-f0-9]{64}$"), digest);
        String byDigest = repo + "@" + digest;
        // The push recorded the digest already: drop every reference to this repository so only
        // the pull can bring it back.
        TestDocker.cli("rmi", repo + ":1");
        TestDocker.tryRun(TestDocker.dockerCli(), "rmi", byDigest);
        assertEquals(java.util.Optional.empty(), engine.inspectImage(repo + ":1"));
        assertFalse(engine.inspectImage(TestDocker.DEMO_IMAGE).orElseThrow().repoDigests().contains(byDigest));

        engine.pullImage(repo + ":1");

        ImageInfo pulled = engine.inspectImage(repo + ":1").orElseGet(() -> fail("pulled image not found"));
        assertTrue(pulled.repoDigests().contains(byDigest), pulled.toString());
        assertEquals(engine.inspectImage(TestDocker.DEMO_IMAGE).orElseThrow().id(), pulled.id());
        // And by digest, which is how the catalog pins an image.
        engine.pullImage(byDigest);
        assertEquals(pulled.id(), engine.inspectImage(byDigest).orElseThrow().id());
    }

    @Test
    void pullOfAMissingTagIsNotFound() {
        assertThrows(DockerNotFoundException.class, () -> engine.pullImage(repo + ":no-such-tag"));
    }

    @Test
    void pullFromAnUnreachableRegistryIsAnApiError() {
        // Port 1 on loopback: nothing listens, the engine reports the failure itself.
        DockerApiException e = assertThrows(DockerApiException.class,
                () -> engine.pullImage("127.0.0.1:1/dogama-test/none:1"));
        assertEquals(500, e.status());
        assertFalse(e.getMessage().contains("127.0.0.1"), "no engine text in the message: " + e.getMessage());
    }

    @Test
    void aPullNeedsATagOrDigest() {
        assertThrows(IllegalArgumentException.class, () -> engine.pullImage(repo));
    }
}
