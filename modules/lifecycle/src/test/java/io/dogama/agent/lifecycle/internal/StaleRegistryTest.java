package io.dogama.agent.lifecycle.internal;

import static io.dogama.agent.lifecycle.internal.Harness.bytes;
import static io.dogama.agent.lifecycle.internal.Harness.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.registry.Registry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An older, authentic copy of the registry put back while the agent was down: a backup taken during a create and
 * restored (the agent's own messages advise restoring a damaged registry from a backup), or an older head written
 * over the current one by someone without the key. The registry cannot tell it from the current one; the start-up
 * recovery then finds an intent that the engine has long since outlived. Found by session 36's review against the
 * real agent: the recovery removed the running container that a committed create had answered 201 for.
 */
class StaleRegistryTest {
    private Harness h;

    @AfterEach
    void tearDown() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    @Test
    void aCopyTakenDuringACreateNeverRemovesTheContainerThatCreateMadeAndStarted() throws Exception {
        h = new Harness();
        String id = h.newId();
        String plan = h.plan(id, h.source("data"), Harness.port(), "one");
        Path copy = Files.createTempDirectory("dogama-stale-").resolve("registry.dat");
        // The copy is taken where a backup could have been: the intent is on disk, the container not yet made.
        h.faults.current = new Harness.Script().on(Step.CREATE_CONTAINER, step -> {
            try {
                Files.copy(h.dataDir.resolve("registry.dat"), copy);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        ok(h.ops.create(bytes(plan)));
        h.faults.current = Faults.NONE;
        ok(h.ops.start(id));
        List<Harness.Seen> before = h.containersOf(id);
        assertEquals(1, before.size(), before::toString);
        assertEquals("running", before.get(0).status());

        // The agent stops, the copy is put back, a new agent starts and reconciles.
        h.registry.close();
        h.docker.close();
        Files.copy(copy, h.dataDir.resolve("registry.dat"), StandardCopyOption.REPLACE_EXISTING);
        h.docker = DockerEngine.connect(h.socket);
        h.registry = Registry.open(h.dataDir, 200);
        h.ops = Agents.start(h.docker, h.registry, h.policy, h.faults);

        List<Harness.Seen> after = h.containersOf(id);
        assertEquals(1, after.size(), () -> "the started container was removed: " + after);
        assertEquals(before.get(0).id(), after.get(0).id());
        assertEquals("running", after.get(0).status());
        // The stale intent is not acted on as the instance either: no record claims the container.
        var record = h.record(id);
        assertTrue(record.isEmpty(), () -> "record: " + record);
    }
}
