package io.dogama.agent.e2e;

import static io.dogama.agent.e2e.Checks.assertRejected;
import static io.dogama.agent.e2e.Checks.unchanged;
import static io.dogama.agent.e2e.Checks.v;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real substitution (SPEC 8.2): another image tagged {@code dogama/demo-http:1} on the engine.
 * The plan is word for word the approved one; only the image behind the tag differs. This moves a
 * tag that every user of the engine shares, so the class runs last (junit-platform.properties
 * orders classes by {@link Order}) and the tag is back on the pinned image ID within one request.
 */
@Order(Integer.MAX_VALUE)
class ImageSubstitutionE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    @Test
    void anotherImageUnderThePinnedTagIsRefusedBeforeAnythingIsCreated() throws Exception {
        Plans.Plan plan = e2e.plan(e2e.instanceId("subst"));
        // control: the very plan is accepted while the tag names the pinned image
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());

        String fake = importTinyImage();
        assertNotEquals(e2e.pinnedImageId(), fake);
        Wire.Response r;
        try {
            e2e.engine().run("tag", fake, AgentUnderTest.DEMO_IMAGE);
            r = unchanged(e2e, () -> e2e.wire().post("/v1/instances", plan.json()));
        } finally {
            e2e.engine().run("tag", e2e.pinnedImageId(), AgentUnderTest.DEMO_IMAGE);
            assertEquals(e2e.pinnedImageId(), e2e.engine().run("image", "inspect", "--format", "{{.Id}}",
                    AgentUnderTest.DEMO_IMAGE).strip(), "the demo tag is restored");
            e2e.engine().tryRun("rmi", "-f", fake);
        }
        assertRejected(r, v("image", "image_substituted"));

        // and with the tag restored the same plan is fine again
        assertEquals(201, e2e.wire().post("/v1/instances", plan.json()).status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + plan.id()).status());
    }

    /** @return the ID of a one-file image made with {@code docker import}, tagged with this run's token */
    private static String importTinyImage() throws IOException, InterruptedException {
        Path dir = Files.createDirectory(e2e.base().resolve("fake-rootfs"));
        Files.writeString(dir.resolve("fake"), "not the demo image " + e2e.token() + "\n");
        Path tar = e2e.base().resolve("fake.tar");
        Process p = new ProcessBuilder("tar", "-C", dir.toString(), "-cf", tar.toString(), "fake")
                .redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("e2e: tar failed: " + new String(p.getInputStream().readAllBytes()));
        }
        e2e.engine().run("import", "--change", "CMD [\"/fake\"]", tar.toString(), "e2e-" + e2e.token() + "-fake:1");
        return e2e.engine().run("image", "inspect", "--format", "{{.Id}}", "e2e-" + e2e.token() + "-fake:1").strip();
    }
}
