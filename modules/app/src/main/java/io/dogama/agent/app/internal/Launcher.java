package io.dogama.agent.app.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Parses the command line and dispatches; the only place that decides the exit status. */
public final class Launcher {
    /** Exit status for a usage error. */
    static final int USAGE = 2;

    private Launcher() {
    }

    /**
     * @param args command line
     * @param env  process environment
     * @param out  standard output
     * @param err  standard error
     * @return the exit status
     */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> a = List.of(args);
        if (a.equals(List.of("--version"))) {
            out.println("dogama-agent " + version());
            return 0;
        }
        if (a.equals(List.of("--self-check"))) {
            return SelfCheck.run(env, out);
        }
        err.println("usage: dogama-agent --version | --self-check");
        return USAGE;
    }

    /** @return the project version baked in at build time */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = Launcher.class.getResourceAsStream("/io/dogama/agent/app/version.properties")) {
            if (in == null) {
                return "unknown";
            }
            p.load(in);
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }
}
