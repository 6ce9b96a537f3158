package io.dogama.agent.auth.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The program the auth tests run in a forked JVM ({@link #command}):
 * <ul>
 * <li>{@code admit DIR THREADS} ({@link KillTest}) opens the persistent memory in DIR and admits fresh
 * nonces from THREADS threads, printing {@code ok <nonce>} after each admission that returned
 * {@code ADMITTED}, until it is killed;
 * <li>{@code fill} ({@link NonceTableTest}) grows a table of the default capacity to its full size,
 * prints {@code filled <slots> of <full size>}, closes it and prints {@code freed <true|false>};
 * <li>{@code reload DIR} ({@link LargeJournalTest}) opens the persistent memory of the default capacity in
 * DIR, prints {@code opened <unexpired nonces>} and closes it.
 * </ul>
 */
final class ForkedNonceMain {
    private ForkedNonceMain() {
    }

    /**
     * @param jvmOptions options of the forked JVM (its heap, for one)
     * @param args       the program's arguments, as above
     * @return the command that runs this program on the auth module with its test classes
     */
    static ProcessBuilder command(List<String> jvmOptions, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> modulePath = split(System.getProperty("jdk.module.path", ""));
        String testClasses = split(System.getProperty("java.class.path", "")).stream()
                .filter(e -> !e.endsWith(".jar")).findFirst()
                .orElseGet(() -> modulePath.stream().filter(e -> e.endsWith("test-classes")).findFirst()
                        .orElseThrow(() -> new IllegalStateException("test classes not found")));
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.add("--module-path");
        cmd.add(String.join(File.pathSeparator, modulePath));
        cmd.add("--patch-module");
        cmd.add("io.dogama.agent.auth=" + testClasses);
        cmd.add("-m");
        cmd.add("io.dogama.agent.auth/" + ForkedNonceMain.class.getName());
        cmd.addAll(Arrays.asList(args));
        return new ProcessBuilder(cmd);
    }

    /**
     * Runs the program to its end and fails the test unless it ended within {@code seconds} with status 0.
     *
     * @param jvmOptions options of the forked JVM
     * @param seconds    how long it may take
     * @param args       the program's arguments
     * @return its output, standard error included
     */
    static String runToEnd(List<String> jvmOptions, long seconds, String... args) throws Exception {
        Process p = command(jvmOptions, args).redirectErrorStream(true).start();
        String output;
        try {
            assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "the forked JVM did not end within " + seconds + " s");
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), output);
        return output;
    }

    private static List<String> split(String path) {
        return Arrays.stream(path.split(File.pathSeparator)).filter(s -> !s.isBlank()).collect(Collectors.toList());
    }

    public static void main(String[] args) throws Exception {
        // Test harness output channel: the parent process reads these lines.
        PrintStream out = System.out;
        if (args[0].equals("fill")) {
            fill(out);
            return;
        }
        Path dir = Path.of(args[1]);
        if (args[0].equals("reload")) {
            try (NonceMemory memory = NonceMemory.persistent(dir, NonceStore.DEFAULT_CAPACITY, NonceStore.RETENTION,
                    Clock.systemUTC())) {
                out.println("opened " + memory.size());
            }
            return;
        }
        int threads = Integer.parseInt(args[2]);
        Clock clock = Clock.systemUTC();
        NonceMemory memory = NonceMemory.persistent(dir, 1_000_000, NonceStore.RETENTION, clock);
        synchronized (out) {
            out.println("opened");
            out.flush();
        }
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread.ofPlatform().start(() -> {
                for (long i = 0; ; i++) {
                    String nonce = String.format("kill-%03d-%015d", id, i);
                    Admission a = memory.admit(nonce, clock.instant());
                    if (a != Admission.ADMITTED) {
                        synchronized (out) {
                            out.println("refused " + a);
                            out.flush();
                        }
                        return;
                    }
                    synchronized (out) {
                        out.println("ok " + nonce);
                        out.flush();
                    }
                }
            });
        }
        // The writer threads keep the process alive until the test kills it.
    }

    private static void fill(PrintStream out) {
        long now = 1_764_615_845L;
        NonceTable t = new NonceTable(NonceStore.DEFAULT_CAPACITY, 0, now);
        // Enough live entries that a rebuild goes to the full size; an odd multiplier spreads the keys' high
        // bits (which pick the home slot) and never yields 0.
        for (long k = 1; k <= NonceStore.DEFAULT_CAPACITY - 100_000; k++) {
            if (t.insert(k * 0x9E3779B97F4A7C15L, now + 60) != NonceTable.Result.INSERTED) {
                out.println("refused " + k);
                return;
            }
        }
        out.println("filled " + t.slots() + " of " + t.maxSlots());
        t.close();
        out.println("freed " + !t.allocated());
    }
}
