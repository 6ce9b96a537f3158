package io.dogama.agent.app.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Parses the command line and dispatches; the only place that decides the exit status. */
public final class Launcher {
    private static final System.Logger LOG = System.getLogger(Launcher.class.getName());
    /** Exit status for a usage error. */
    static final int USAGE = 2;
    /*
     * 3 is taken: the JVM exits with 3 on an OutOfMemoryError (-XX:+ExitOnOutOfMemoryError, an option of
     * the runtime image), and 1 on an uncaught error.
     */
    /** Exit status when the HTTP listener died (sysexits' EX_SOFTWARE): the supervisor restarts the agent. */
    static final int LISTENER_DIED = 70;
    /**
     * Exit status when the agent refuses to start (sysexits' EX_CONFIG): the configuration or the host
     * must be fixed first, a restart alone changes nothing.
     */
    static final int REFUSED = 78;
    /**
     * Exit status when the Docker engine did not answer during the start (sysexits' EX_UNAVAILABLE): it may not be
     * up yet, so the supervisor should start the agent again.
     */
    static final int ENGINE_UNAVAILABLE = 69;
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
        if (!a.isEmpty() && a.get(0).equals("audit")) {
            return AuditCommand.run(a.subList(1, a.size()), env, out, err);
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
                + " | validate --config FILE PLAN.json | digest PLAN.json | catalog"
                + " | audit verify [--config FILE | --key KEYFILE] [DIR] | audit tail [--config FILE | --dir DIR] [N]");
        return USAGE;
    }

    /**
     * Runs the agent until the JVM shuts down (SIGTERM, SIGINT, SIGHUP: the JVM's own handling, which
     * exits with 128 + the signal's number once the shutdown hooks are done) or until its HTTP listener
     * is gone ({@link Lifetime}; then {@link #LISTENER_DIED}). Either way the agent is stopped once, and
     * standard error says that it is stopping and that it stopped. Those two lines, like the one saying
     * that it listens, are written to standard error directly: during a shutdown the JDK's logging
     * resets its handlers in a hook of its own, concurrently with ours, and log records can be lost.
     */
    private static int serve(Path config, PrintStream err) {
        String fileNames = System.getProperty("sun.jnu.encoding", "");
        if (!fileNames.equalsIgnoreCase("UTF-8")) {
            // The JVM names files in its locale's encoding (ASCII under the C locale); the path rules refuse
            // what it cannot name, so the operator should know why a plan with such a source is refused.
            LOG.log(System.Logger.Level.WARNING, "app: file names are read as " + fileNames
                    + " (the locale's encoding): a bind source or a checked path with other characters is refused"
                    + " as invalid_path; run with LC_CTYPE=C.UTF-8 (as the container image does) to allow them");
        }
        AgentProcess agent;
        try {
            agent = AgentProcess.start(config, Clock.systemUTC());
        } catch (StartupException e) {
            err.println("dogama-agent: " + e.getMessage());
            return e.passing() ? ENGINE_UNAVAILABLE : REFUSED;
        }
        Lifetime life = Lifetime.watch(agent.listenAddress(), agent::listening);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            life.stopping();
            stop(agent, err, "the JVM is shutting down (a stop signal)");
        }, "dogama-shutdown"));
        err.println("dogama-agent: listening on port " + agent.port());
        String death = life.awaitDeath();
        life.stopping();
        LOG.log(System.Logger.Level.ERROR, "app: " + death + "; exiting with status " + LISTENER_DIED
                + " so that the supervisor restarts the agent");
        stop(agent, err, death);
        return LISTENER_DIED;
    }

    /** Stops the agent unless that was done before; says so on standard error. */
    private static void stop(AgentProcess agent, PrintStream err, String why) {
        if (agent.beginClose()) {
            err.println("dogama-agent: stopping: " + why);
            agent.close();
            err.println("dogama-agent: stopped");
        }
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
