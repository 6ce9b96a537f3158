package io.dogama.agent.auth.internal;

import io.dogama.agent.auth.NonceStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The program {@link KillTest} runs in a forked JVM: {@code admit DIR THREADS} opens the persistent
 * memory in DIR and admits fresh nonces from THREADS threads, printing {@code ok <nonce>} after each
 * admission that returned {@code ADMITTED}, until it is killed.
 */
final class ForkedNonceMain {
    private ForkedNonceMain() {
    }

    public static void main(String[] args) throws Exception {
        // Test harness output channel: the parent process reads these lines.
        PrintStream out = System.out;
        Path dir = Path.of(args[1]);
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
}
