package io.dogama.agent.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dogama.agent.core.InstanceState;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class InstanceRecordTest {
    private static final String HEX = "ab".repeat(32);
    private static final String DIGEST = "sha256:" + HEX;

    private static InstanceRecord rec(String id, Optional<String> cid, String name, String tid, String ver,
            String digest, String plan, long rev, Optional<String> step) {
        return new InstanceRecord(id, cid, name, tid, ver, digest, plan, InstanceState.CREATED, rev, Optional.empty(),
                step);
    }

    private static InstanceRecord good() {
        return rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.empty());
    }

    private static void rejected(Supplier<Object> s) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, s::get);
        assertEquals(true, e.getMessage().startsWith("registry: "), e.getMessage());
    }

    @Test
    void aGoodRecordIsAValueComparedByContent() {
        assertEquals(good(), good());
        assertEquals(good().hashCode(), good().hashCode());
        assertNotEquals(good(), good().withState(InstanceState.RUNNING));
        assertEquals(InstanceRecord.CURRENT_FORMAT, good().formatVersion());
        assertEquals(InstanceState.RUNNING, good().withState(InstanceState.RUNNING).state());
        assertEquals(Optional.of("s1"), good().withStep(Optional.of("s1")).step());
        assertEquals(Optional.empty(), good().withContainerId(Optional.empty()).containerId());
        assertEquals(7, good().withRevision(7).revision());
        rejected(() -> good().withRevision(-1));
    }

    @Test
    void aRollbackMakesThePriorsPlanCurrentAndDropsThePrior() {
        String other = "sha256:" + "cd".repeat(32);
        InstanceRecord.Prior p = new InstanceRecord.Prior("{\"v\":1}", other, "demo-tcp", "2.0.0", Optional.of(HEX),
                "dogama-alpha-1-r1", true);
        InstanceRecord r = good().withPrior(Optional.of(p)).withStep(Optional.of("s1")).withPlanOf(p);
        assertEquals(other, r.planDigest());
        assertEquals("{\"v\":1}", r.canonicalPlan());
        assertEquals("demo-tcp", r.templateId());
        assertEquals("2.0.0", r.templateVersion());
        assertEquals(Optional.empty(), r.prior());
        assertEquals("dogama-alpha-1", r.containerName(), "the name stays the instance's");
        assertEquals(Optional.of("s1"), r.step());
        assertEquals(1, r.revision());
    }

    @Test
    void everyFieldIsValidated() {
        rejected(() -> rec("Alpha", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of("ABCD"), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "-bad name", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "d".repeat(129), "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "x", "1.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "01.0.0", DIGEST, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", HEX, "{}", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "", 1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST,
                "x".repeat(InstanceRecord.MAX_PLAN_BYTES + 1), 1, Optional.empty()));
        // 3-byte characters: under the limit in chars, over it in UTF-8 bytes.
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST,
                "☃".repeat(InstanceRecord.MAX_PLAN_BYTES / 3 + 1), 1, Optional.empty()));
        // A lone surrogate cannot survive UTF-8.
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST,
                "{\"a\":\"\ud800\"}", 1, Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", -1,
                Optional.empty()));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.of("has space")));
        rejected(() -> rec("alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0", DIGEST, "{}", 1,
                Optional.of("s".repeat(InstanceRecord.MAX_STEP_LENGTH + 1))));
        rejected(() -> new InstanceRecord(2, "alpha-1", Optional.of(HEX), "dogama-alpha-1", "demo-http", "1.0.0",
                DIGEST, "{}", InstanceState.CREATED, 1, Optional.empty(), Optional.empty()));
        rejected(() -> new InstanceRecord.Prior("{}", DIGEST, "demo-http", "1.0.0", Optional.of("nope"),
                "dogama-alpha-1-r1", true));
        assertThrows(NullPointerException.class, () -> good().withState(null));
        assertThrows(NullPointerException.class, () -> good().withPrior(null));
    }
}
