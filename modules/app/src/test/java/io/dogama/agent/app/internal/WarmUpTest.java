package io.dogama.agent.app.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The warm-up reads nothing of the runtime before the runtime passed its check, and nothing at all after a refusal. */
class WarmUpTest {
    private static final long JOIN_MILLIS = 30_000;

    @Test
    void theStepsThatReadTheRuntimeNeverRunWhenTheStartIsRefused() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        WarmUp w = WarmUp.begin(ran::incrementAndGet);
        w.cancel();
        w.thread().join(JOIN_MILLIS);
        assertFalse(w.thread().isAlive(), "the warm-up thread did not end after a refusal");
        assertEquals(0, ran.get(), "a step that reads the runtime ran although the runtime was refused");
    }

    @Test
    void theyRunOnceTheRuntimeIsTrusted() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        WarmUp w = WarmUp.begin(ran::incrementAndGet);
        w.runtimeTrusted();
        w.thread().join(JOIN_MILLIS);
        assertFalse(w.thread().isAlive(), "the warm-up thread did not end");
        assertEquals(1, ran.get());
    }

    @Test
    void aRefusalAfterTrustChangesNothingAndTheThreadIsADaemon() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        WarmUp w = WarmUp.begin(ran::incrementAndGet);
        assertTrue(w.thread().isDaemon(), "the warm-up must never hold up an exit");
        w.runtimeTrusted();
        w.cancel();
        w.thread().join(JOIN_MILLIS);
        assertEquals(1, ran.get());
    }
}
