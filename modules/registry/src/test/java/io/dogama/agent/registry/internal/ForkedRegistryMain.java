package io.dogama.agent.registry.internal;

import io.dogama.agent.registry.CasResult;
import io.dogama.agent.registry.Lookup;
import io.dogama.agent.registry.Registry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The program the forked-JVM tests run. {@code write DIR}: inserts records 1, 2, 3... and, every other
 * step, replaces the previous one (so the stream mixes inserts and in-place updates), printing
 * {@code wrote k} after each completed write, until killed. {@code probe DIR}: every registry operation
 * once, then {@code probe ok}. {@code open-close DIR}: opens (creating it if need be), inserts one record
 * (unless there), prints {@code open}, waits for a line on standard input, closes and prints {@code closed}.
 * {@code library-hooks DIR [made-by-an-earlier-build]}: opens (that registry first made as an earlier build
 * made it), inserts, runs the shutdown hooks Chronicle registered (as a stop signal would), reads the record,
 * closes and says whether the clean marker exists. {@code create-crash DIR STEP}: creates a new registry and
 * halts the JVM (as {@code kill -9} would end it) right after the
 * {@link ChronicleRegistry.CreationStep} {@code STEP}, with status {@value #HALTED}.
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
                            // An update of the previous record, same size as before: Chronicle writes it in place.
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
            case "probe" -> {
                out.println("jdk.compiler=" + (ModuleLayer.boot().findModule("jdk.compiler").isPresent()
                        ? "present" : "absent"));
                try (Registry r = Registry.open(dir, 10)) {
                    CasResult s = r.insert(Samples.record("probe-1", 1));
                    Lookup.Found f = (Lookup.Found) r.get("probe-1");
                    CasResult s2 = r.replace(f.generation(), Samples.replacing("probe-1", 2));
                    List<Lookup> all = r.all();
                    CasResult s3 = r.remove("probe-1", 2);
                    boolean ok = s instanceof CasResult.Stored && s2 instanceof CasResult.Stored && all.size() == 1
                            && s3 instanceof CasResult.Removed;
                    out.println(ok ? "probe ok" : "probe failed");
                }
                try (Registry r = Registry.open(dir, 10)) {
                    out.println(r.all().isEmpty() ? "reopen ok" : "reopen failed");
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
            case "library-hooks" -> {
                if (args.length > 2 && args[2].equals("made-by-an-earlier-build")) {
                    makeWithChroniclesHook(dir);
                }
                Registry r = Registry.open(dir, 10);
                if (!(r.insert(Samples.record("hooks-1", 1)) instanceof CasResult.Stored)) {
                    throw new IllegalStateException("insert not stored");
                }
                // What the JVM runs on a stop signal beside the agent's own hook: every hook Chronicle registered.
                net.openhft.chronicle.core.shutdown.PriorityHook hooks =
                        net.openhft.chronicle.core.shutdown.PriorityHook.getRegisteredHook();
                if (hooks != null) {
                    hooks.onShutdown();
                }
                out.println("read after the library's hooks: " + lookUp(r, "hooks-1"));
                r.close();
                out.println("clean marker: " + java.nio.file.Files.exists(dir.resolve(ChronicleRegistry.CLEAN_FILE)));
                out.flush();
            }
            case "create-crash" -> {
                ChronicleRegistry.CreationStep at = ChronicleRegistry.CreationStep.valueOf(args[2]);
                ChronicleRegistry.afterCreationStep = step -> {
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

    /**
     * A registry as a build before {@code skipCloseOnExitHook} made it: the map's header says Chronicle's
     * shutdown hook closes it. The key and the clean marker come from an ordinary open and close.
     */
    private static void makeWithChroniclesHook(Path dir) throws Exception {
        Registry.open(dir, 10).close();
        java.nio.file.Files.delete(dir.resolve(ChronicleRegistry.MAP_FILE));
        RecordMac mac = new RecordMac(KeyFile.load(dir.resolve(ChronicleRegistry.KEY_FILE)));
        try (net.openhft.chronicle.map.ChronicleMap<String, byte[]> m = ChronicleRegistry.builder(10)
                .skipCloseOnExitHook(false).createPersistedTo(dir.resolve(ChronicleRegistry.MAP_FILE).toFile())) {
            m.put(ChronicleRegistry.META_KEY, RecordCodec.encodeMeta(mac, ChronicleRegistry.META_KEY));
        }
    }

    private static String lookUp(Registry r, String id) {
        try {
            return r.get(id).getClass().getSimpleName();
        } catch (RuntimeException | io.dogama.agent.registry.RegistryException e) {
            return e.getClass().getSimpleName();
        }
    }

    static String id(int k) {
        return String.format("inst-%05d", k);
    }
}
