package io.dogama.agent.app;

import io.dogama.agent.app.internal.Launcher;

/**
 * Entry point of the agent. {@code --version}, {@code --self-check}, or run the agent with
 * {@code --config FILE} (or {@code DOGAMA_AGENT_CONFIG}). Exits non-zero on any failure: 78 when the
 * agent refuses to start, 70 when its HTTP listener died, 3 on an {@link OutOfMemoryError} (the runtime
 * image's {@code -XX:+ExitOnOutOfMemoryError}), 128 + n after a graceful stop on signal n (143 for
 * SIGTERM, the JVM's own status).
 */
public final class Main {
    private Main() {
    }

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        // Always exit: after a stop, threads the libraries leave behind must not keep the process alive.
        System.exit(Launcher.run(args, System.getenv(), System.out, System.err));
    }
}
