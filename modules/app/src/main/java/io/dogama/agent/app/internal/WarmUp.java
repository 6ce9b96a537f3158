package io.dogama.agent.app.internal;

import io.dogama.agent.http.AgentServer;
import java.math.BigDecimal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Runs the costliest class initialisers of a start, and the part of building the HTTP server that no setting changes,
 * on a thread of its own while the main thread checks the runtime's files and reads the config: otherwise the main
 * thread runs them, in the interpreter, while the second core waits (docs/performance.md, session 30). Nothing here
 * depends on the config or opens anything the agent keeps; a step that fails here fails again, and is reported, where
 * the agent needs it.
 */
final class WarmUp {
    private WarmUp() {
    }

    /** @return the thread, started; a daemon, so that it never holds up an exit */
    static Thread begin() {
        return Thread.ofPlatform().name("dogama-warm-up").daemon(true).start(WarmUp::run);
    }

    private static void run() {
        // JDK 25's BigDecimal computes 5^(2^16) by repeated squaring in its static initialiser: 10 to 17 ms in the
        // interpreter. jackson-core's parsers need BigDecimal, so the config's parse would run it on the main thread.
        BigDecimal.ONE.signum();
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
    }
}
