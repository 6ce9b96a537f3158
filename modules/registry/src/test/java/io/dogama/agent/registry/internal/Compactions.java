package io.dogama.agent.registry.internal;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts the registry's finished compactions (each one renamed into place) until {@link #reset}. */
final class Compactions {
    private final AtomicInteger done = new AtomicInteger();

    private Compactions() {
    }

    static Compactions count() {
        Compactions c = new Compactions();
        LogRegistry.afterCompactionStep = step -> {
            if (step == LogRegistry.CompactionStep.RENAMED) {
                c.done.incrementAndGet();
            }
        };
        return c;
    }

    int done() {
        return done.get();
    }

    /** Puts the registry's seam back as the agent has it. */
    static void reset() {
        LogRegistry.afterCompactionStep = step -> {
        };
    }
}
