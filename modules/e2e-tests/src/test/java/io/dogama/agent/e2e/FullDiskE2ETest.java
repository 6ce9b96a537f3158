package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, fault campaign: the data directory (a small tmpfs) fills up while the agent runs. A
 * create and a replace fail with a typed error, leave no container the registry does not name and
 * change nothing registered; the registry stays readable; once space returns, the next operations
 * succeed without an agent restart. The real agent from the jlink image against the real engine.
 */
class FullDiskE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    static {
        e2e.dataOnTmpfs(64L * 1024 * 1024);
    }

    /** Fills the data directory's file system with one file, to the last byte it takes. */
    private static Path fill() throws IOException {
        Path filler = e2e.dataDir().resolve("filler");
        byte[] chunk = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            assertTrue(full.getMessage() != null && full.getMessage().contains("No space"), full.toString());
        }
        try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
            while (true) {
                out.write(0);
            }
        } catch (IOException full) {
            // the last byte
        }
        return filler;
    }

    /**
     * The agent goes on writing into the pages its files already have, so a full file system is
     * met by whichever write needs the next page first (the nonce journal, the audit log or the
     * registry): the test keeps asking for creates, replaces and the list until the agent has refused
     * several in a row, and checks every answer on the way.
     */
    @Test
    void aFullDataDirectoryRefusesMutationsCleanlyAndRecoversWhenSpaceReturns() throws Exception {
        Plans.Plan a = e2e.plan(e2e.instanceId("full-a"));
        String pathA = "/v1/instances/" + a.id();
        assertEquals(201, e2e.wire().post("/v1/instances", a.json()).status());
        assertEquals(200, e2e.wire().post(pathA + "/start").status());
        long pid = e2e.process().pid();

        Path filler = fill();
        java.util.Map<Integer, Integer> seen = new java.util.TreeMap<>();
        List<Plans.Plan> asked = new ArrayList<>();
        try {
            int refusedInARow = 0;
            for (int i = 0; i < 3000 && refusedInARow < 12; i++) {
                Wire.Response r;
                switch (i % 3) {
                    case 0 -> {
                        Plans.Plan b = e2e.plan(e2e.instanceId("full-b" + i));
                        asked.add(b);
                        r = e2e.wire().post("/v1/instances", b.json());
                    }
                    case 1 -> {
                        Plans.Plan next = a.copy();
                        next.map("env").put("GREETING", "replaced" + i);
                        long revision = Json.number(e2e.wire().get(pathA).json().getOrDefault("revision", 0L));
                        r = e2e.wire().put(pathA, "{\"plan\":" + next.json() + ",\"expectedRevision\":" + revision
                                + "}");
                    }
                    default -> r = e2e.wire().get("/v1/instances");
                }
                seen.merge(r.status(), 1, Integer::sum);
                if (r.status() >= 300) {
                    assertTyped(r);
                    refusedInARow++;
                } else {
                    refusedInARow = 0;
                }
            }
            assertTrue(refusedInARow >= 12, "the full disk was never felt: " + seen);
        } finally {
            Files.delete(filler);
        }

        // every instance is exactly what the registry says, with exactly its container
        Wire.Response list = e2e.wire().get("/v1/instances");
        assertEquals(200, list.status(), () -> list + "\n" + e2e.logTail());
        Map<String, Object> inst = e2e.wire().get(pathA).json();
        assertEquals("RUNNING", inst.get("state"), inst::toString);
        assertEquals(1, e2e.engine().containersOf(a.id()).size(), "instance a has exactly its container");
        for (Plans.Plan b : asked) {
            boolean registered = list.body().contains("\"" + b.id() + "\"");
            assertEquals(registered ? 1 : 0, e2e.engine().containersOf(b.id()).size(),
                    b.id() + (registered ? " is registered but has no container" : " left a container behind"));
            if (registered) {
                assertEquals(204, e2e.wire().delete("/v1/instances/" + b.id()).status());
            }
        }
        // and everything works again, without a restart
        Plans.Plan after = e2e.plan(e2e.instanceId("full-after"));
        assertEquals(201, e2e.wire().post("/v1/instances", after.json()).status(), "after space returned");
        Plans.Plan next = a.copy();
        next.map("env").put("GREETING", "after");
        long revision = Json.number(inst.get("revision"));
        Wire.Response replaced = e2e.wire().put(pathA, "{\"plan\":" + next.json() + ",\"expectedRevision\":"
                + revision + "}");
        assertEquals(200, replaced.status(), replaced::toString);
        assertEquals(204, e2e.wire().delete(pathA).status());
        assertEquals(204, e2e.wire().delete("/v1/instances/" + after.id()).status());
        assertEquals(pid, e2e.process().pid(), "the same agent process throughout");
        System.getLogger(FullDiskE2ETest.class.getName()).log(System.Logger.Level.INFO,
                "full disk: answers by status while full {0}", seen);
    }

    /** A refusal the caller can act on: 503 with a stable code, never a 500 or internal_error. */
    private static void assertTyped(Wire.Response r) {
        assertEquals(503, r.status(), () -> "expected a typed refusal, got " + r + "\n" + e2e.logTail());
        assertTrue(r.contentType().startsWith("application/problem+json"), r::toString);
        assertTrue(r.body().contains("\"code\":\"busy\""), r::toString);
    }
}
