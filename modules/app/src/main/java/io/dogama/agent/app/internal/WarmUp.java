package io.dogama.agent.app.internal;

import io.dogama.agent.http.AgentServer;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the costliest class initialisers of a start, and the part of building the HTTP server that no setting changes,
 * on a thread of its own: otherwise the main thread runs them, in the interpreter, while the second core waits
 * (docs/performance.md, session 30). Nothing here depends on the config or opens anything the agent keeps; a step that
 * fails here fails again, and is reported, where the agent needs it.
 *
 * <p>Only {@code BigDecimal}'s initialiser runs while the main thread still checks the runtime's files: it reads
 * nothing from the runtime (its classes are among those the JVM loaded at its own start, with the AOT cache). Every
 * later step reads the runtime's files (the security configuration, Helidon's resources), so it waits until the
 * runtime passed its check ({@link #runtimeTrusted}) and never runs when the start is refused ({@link #cancel}): a
 * runtime others may change is refused before the agent loads more from it.
 */
final class WarmUp {
    private final CountDownLatch checked = new CountDownLatch(1);
    private final Runnable afterCheck;
    private final Thread thread;
    private volatile boolean trusted;

    private WarmUp(Runnable afterCheck) {
        this.afterCheck = afterCheck;
        this.thread = Thread.ofPlatform().name("dogama-warm-up").daemon(true).unstarted(this::run);
    }

    /** @return the warm-up, started; its thread is a daemon, so that it never holds up an exit */
    static WarmUp begin() {
        return begin(WarmUp::readingTheRuntime);
    }

    /** @param afterCheck what runs once the runtime is trusted (tests give their own) */
    static WarmUp begin(Runnable afterCheck) {
        WarmUp w = new WarmUp(afterCheck);
        w.thread.start();
        return w;
    }

    /** The runtime passed its check: the steps that read its files may run. */
    void runtimeTrusted() {
        trusted = true;
        checked.countDown();
    }

    /** The start was refused: the steps that read the runtime's files never run, and the thread ends. */
    void cancel() {
        checked.countDown();
    }

    /** @return the thread (tests wait for it) */
    Thread thread() {
        return thread;
    }

    private void run() {
        // JDK 25's BigDecimal computes 5^(2^16) by repeated squaring in its static initialiser: 10 to 17 ms in the
        // interpreter. jackson-core's parsers need BigDecimal, so the config's parse would run it on the main thread.
        BigDecimal.ONE.signum();
        try {
            checked.await();
        } catch (InterruptedException e) {
            return; // nothing interrupts it but a test; the main thread does these steps itself then
        }
        if (trusted) {
            afterCheck.run();
        }
    }

    private static void readingTheRuntime() {
        // The SUN provider and its SHA-256 and SecureRandom: the catalog's digest, the HMAC, the keys and the nonce
        // hash need them next, on the main thread and the registry's.
        try {
            MessageDigest.getInstance("SHA-256").digest(new byte[0]);
        } catch (NoSuchAlgorithmException e) {
            return; // HmacSha256 and the catalog say so where they need it
        }
        new SecureRandom().nextBytes(new byte[1]);
        // Helidon's service registry and empty config: two fifths of building the server, which the main thread
        // does after the config, the catalog, the nonce journal and the audit log.
        try {
            AgentServer.prepare();
        } catch (RuntimeException | LinkageError e) {
            // A failed class initialiser fails the main thread's own call again, with this as its cause.
        }
        // The JDK's management beans (their native library, the VM's management interface): the metrics' memory and
        // thread gauges, and Helidon's uptime line when the server starts, ask for them next, on the main thread.
        try {
            ManagementFactory.getRuntimeMXBean().getUptime();
            ManagementFactory.getMemoryMXBean();
            ManagementFactory.getThreadMXBean();
        } catch (RuntimeException | LinkageError e) {
            // Instruments asks again, and reports it.
        }
    }
}
