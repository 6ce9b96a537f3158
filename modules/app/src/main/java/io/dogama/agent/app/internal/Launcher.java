package io.dogama.agent.app.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/** Parses the command line and dispatches; the only place that decides the exit status. */
public final class Launcher {
    /** Exit status for a usage error. */
    static final int USAGE = 2;
    /** Exit status when the agent refuses to start. */
    static final int REFUSED = 3;
    /** Environment variable naming the config file when no {@code --config} is given. */
    static final String CONFIG_ENV = "DOGAMA_AGENT_CONFIG";

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
        if (!a.isEmpty() && a.get(0).equals("health")) {
            if (a.size() == 3 && a.get(1).equals("--config")) {
                return HealthCommand.run(Path.of(a.get(2)), out);
            }
            if (a.size() == 1 && env.containsKey(CONFIG_ENV)) {
                return HealthCommand.run(Path.of(env.get(CONFIG_ENV)), out);
            }
            err.println("usage: dogama-agent health --config FILE (or " + CONFIG_ENV + ")");
            return USAGE;
        }
        // Offline tools for plan authors (no engine, no secret): ValidateCommand, DigestCommand, CatalogCommand.
        if (!a.isEmpty() && a.get(0).equals("validate")) {
            if (a.size() == 4 && a.get(1).equals("--config")) {
                return ValidateCommand.run(Path.of(a.get(2)), Path.of(a.get(3)), out, err);
            }
            err.println("usage: dogama-agent validate --config FILE PLAN.json");
            return USAGE;
        }
        if (!a.isEmpty() && a.get(0).equals("digest")) {
            if (a.size() == 2) {
                return DigestCommand.run(Path.of(a.get(1)), out, err);
            }
            err.println("usage: dogama-agent digest PLAN.json");
            return USAGE;
        }
        if (a.equals(List.of("catalog"))) {
            return CatalogCommand.run(out, err);
        }
        if (a.size() == 2 && a.get(0).equals("--config")) {
            return serve(Path.of(a.get(1)), err);
        }
        if (a.isEmpty() && env.containsKey(CONFIG_ENV)) {
            return serve(Path.of(env.get(CONFIG_ENV)), err);
        }
        err.println("usage: dogama-agent --version | --self-check | [health] --config FILE (or " + CONFIG_ENV + ")"
                + " | validate --config FILE PLAN.json | digest PLAN.json | catalog");
        return USAGE;
    }

    private static int serve(Path config, PrintStream err) {
        AgentProcess agent;
        try {
            agent = AgentProcess.start(config, Clock.systemUTC());
        } catch (StartupException e) {
            err.println("dogama-agent: " + e.getMessage());
            return REFUSED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            stopped.countDown();
        }, "dogama-shutdown"));
        err.println("dogama-agent: listening on port " + agent.port());
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
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
