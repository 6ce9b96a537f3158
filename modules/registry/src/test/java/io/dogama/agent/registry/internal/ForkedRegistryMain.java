package io.dogama.agent.registry.internal;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.InstanceRecord;
import io.dogama.agent.core.InstanceState;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The program the forked-JVM tests run. {@code write DIR}: inserts records 1, 2, 3... and, every other
 * step, replaces the previous one (so the stream mixes inserts and updates), printing
 * {@code wrote k} after each completed write, until killed. {@code open-close DIR}: opens (creating it if need be),
 * inserts one record (unless there), prints {@code open}, waits for a line on standard input, closes and prints
 * {@code closed}. {@code compact DIR}: writes until the registry compacted its file, prints {@code compacted}.
 * {@code create-crash DIR STEP} and {@code compact-crash DIR STEP}: creates a new registry, or writes until it
 * compacts (printing {@code wrote g} after each completed write of {@link #BIG}, {@code g} its generation), and halts
 * the JVM (as {@code kill -9} would end it) right after the {@link LogRegistry.CreationStep} or {@link
 * LogRegistry.CompactionStep} {@code STEP}, with status {@value #HALTED}.
 */
final class ForkedRegistryMain {
    /** Exit status of a JVM halted by {@code create-crash}. */
    static final int HALTED = 86;

    private ForkedRegistryMain() {
    }

    public static void main(String[] args) throws Exception {
        // Test harness output channel: the parent process reads these lines.
        PrintStream out = System.out;
        Path dir = Path.of(args[1]);
        switch (args[0]) {
            case "write" -> {
                try (Registry r = Registry.open(dir, CrashRecoveryTest.LIMIT)) {
                    out.println("opened");
                    out.flush();
                    for (int k = 1; k <= CrashRecoveryTest.LIMIT; k++) {
                        if (!(r.insert(Samples.record(id(k), k)) instanceof CasResult.Stored)) {
                            throw new IllegalStateException("insert " + k + " not stored");
                        }
                        if (k > 1) {
                            Lookup.Found f = (Lookup.Found) r.get(id(k - 1));
                            if (!(r.replace(f.generation(), Samples.record(id(k - 1), k - 1)
                                    .withStep(java.util.Optional.of("updated"))) instanceof CasResult.Stored)) {
                                throw new IllegalStateException("replace " + (k - 1) + " not stored");
                            }
                        }
                        out.println("wrote " + k);
                        out.flush();
                    }
                    out.println("limit reached");
                    out.flush();
                    // Stay alive until killed: the test decides when the crash happens.
                    Thread.sleep(Long.MAX_VALUE);
                }
            }
            case "open-close" -> {
                try (Registry r = Registry.open(dir, 10)) {
                    if (!(r.get("modes-1") instanceof Lookup.Found)
                            && !(r.insert(Samples.record("modes-1", 1)) instanceof CasResult.Stored)) {
                        throw new IllegalStateException("insert not stored");
                    }
                    // Every file of an open registry exists now; the parent looks at them before the close.
                    out.println("open");
                    out.flush();
                    if (System.in.read() < 0) {
                        throw new IllegalStateException("stdin closed before the go-ahead");
                    }
                }
                out.println("closed");
                out.flush();
            }
            case "compact" -> {
                boolean[] compacted = {false};
                LogRegistry.afterCompactionStep = step -> compacted[0] |= step == LogRegistry.CompactionStep.RENAMED;
                try (Registry r = Registry.open(dir, 10)) {
                    churn(r, out, () -> compacted[0]);
                }
                out.println(compacted[0] ? "compacted" : "not compacted");
                out.flush();
            }
            case "compact-crash" -> {
                LogRegistry.CompactionStep at = LogRegistry.CompactionStep.valueOf(args[2]);
                LogRegistry.afterCompactionStep = step -> {
                    if (step == at) {
                        out.flush();
                        Runtime.getRuntime().halt(HALTED);
                    }
                };
                try (Registry r = Registry.open(dir, 10)) {
                    churn(r, out, () -> false);
                }
                out.println("not halted");
                out.flush();
            }
            case "create-crash" -> {
                LogRegistry.CreationStep at = LogRegistry.CreationStep.valueOf(args[2]);
                LogRegistry.afterCreationStep = step -> {
                    if (step == at) {
                        out.flush();
                        Runtime.getRuntime().halt(HALTED);
                    }
                };
                Registry.open(dir, 10).close();
                out.println("not halted");
                out.flush();
            }
            default -> throw new IllegalArgumentException("unknown mode");
        }
    }

    /** The instance {@code compact} and {@code compact-crash} replace until the registry compacts. */
    static final String BIG = "big-1";
    /** The instance beside it, written once. */
    static final String SMALL = "small-1";

    /** A record of about 260 kB: a few replaces of it are more garbage than the registry keeps. */
    static InstanceRecord big(int n) {
        String plan = "{\"x\":\"" + "y".repeat(InstanceRecord.MAX_PLAN_BYTES - 16) + "\"}";
        InstanceRecord.Prior prior = new InstanceRecord.Prior(plan, "sha256:" + Samples.hex64(n), "demo-http", "1.0.0",
                Optional.empty(), "dogama-big-1-r1", false);
        return new InstanceRecord(BIG, Optional.of(Samples.hex64(1)), "dogama-big-1", "demo-http", "1.0.0",
                "sha256:" + Samples.hex64(2), plan, InstanceState.REPLACING, n, Optional.of(prior), Optional.empty());
    }

    /** Inserts {@link #SMALL} and {@link #BIG}, then replaces {@link #BIG} until {@code done} (at most 100 times). */
    private static void churn(Registry r, PrintStream out, java.util.function.BooleanSupplier done) throws Exception {
        if (!(r.insert(Samples.record(SMALL, 1)) instanceof CasResult.Stored)
                || !(r.insert(big(1)) instanceof CasResult.Stored)) {
            throw new IllegalStateException("insert not stored");
        }
        out.println("wrote 1");
        for (int g = 2; g <= 100 && !done.getAsBoolean(); g++) {
            if (!(r.replace(g - 1, big(g)) instanceof CasResult.Stored)) {
                throw new IllegalStateException("replace " + g + " not stored");
            }
            out.println("wrote " + g);
            out.flush();
        }
    }

    static String id(int k) {
        return String.format("inst-%05d", k);
    }
}
