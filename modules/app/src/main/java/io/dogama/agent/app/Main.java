package io.dogama.agent.app;

import io.dogama.agent.app.internal.Launcher;

/**
 * Entry point of the agent. {@code --version}, {@code --self-check}, or run the agent with
 * {@code --config FILE} (or {@code DOGAMA_AGENT_CONFIG}). Exits non-zero on any failure.
 */
public final class Main {
    private Main() {
    }

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        int status = Launcher.run(args, System.getenv(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }
}
