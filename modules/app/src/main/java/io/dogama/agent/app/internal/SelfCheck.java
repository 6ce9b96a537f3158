package io.dogama.agent.app.internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Exercises every runtime library from inside the runtime image, through the modules that own
 * them, and fails if any does not work there (a missing module descriptor, option or native
 * library shows up here rather than in production).
 */
final class SelfCheck {
    private SelfCheck() {
    }

    /** One named check; throws on failure. */
    interface Check {
        void run() throws Exception;
    }

    record Named(String name, Check check) {
    }

    static int run(Map<String, String> env, PrintStream out) {
        List<Named> checks = new ArrayList<>();
        checks.add(new Named("runtime", () -> {
            if (Runtime.version().feature() < 25) {
                throw new IllegalStateException("Java 25+ required");
            }
        }));
        int failed = 0;
        for (Named n : checks) {
            long t0 = System.nanoTime();
            try {
                n.check().run();
                out.printf("self-check %-12s ok (%d ms)%n", n.name(), (System.nanoTime() - t0) / 1_000_000);
            } catch (Exception | LinkageError e) {
                failed++;
                out.printf("self-check %-12s FAILED: %s%n", n.name(), e);
            }
        }
        out.println(failed == 0 ? "self-check passed" : "self-check FAILED (" + failed + ")");
        return failed == 0 ? 0 : 1;
    }
}
