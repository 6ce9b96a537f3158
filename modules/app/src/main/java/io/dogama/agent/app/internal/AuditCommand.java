package io.dogama.agent.app.internal;

import io.dogama.agent.audit.AuditException;
import io.dogama.agent.audit.AuditLog;
import io.dogama.agent.audit.Verification;
import io.dogama.agent.policy.AdminConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code dogama-agent audit verify|tail}: offline, on the files, with no agent running needed.
 * <ul>
 * <li>{@code audit verify [--config FILE | --key KEYFILE] [DIR]}: checks the whole chain; exit 0 when it
 *     holds, 1 naming the first line that was changed, removed, reordered or inserted (file, line
 *     number, sequence number), {@value #UNREADABLE} when the key or a file cannot be read.</li>
 * <li>{@code audit tail [--config FILE | --dir DIR] [N]}: prints the last N lines (default
 *     {@value #DEFAULT_TAIL}) as written, unverified.</li>
 * </ul>
 * With {@code --config} (or {@code DOGAMA_AGENT_CONFIG}), the folder and key are the configured ones, and verify
 * also requires the log to hold the last line the agent recorded beside its key ({@code audit.head}); a folder
 * named on the command line (an archive, a copy) is checked as a chain only.
 */
final class AuditCommand {
    /** Exit status when the key or the log cannot be read (sysexits' EX_IOERR). */
    static final int UNREADABLE = 74;
    static final int DEFAULT_TAIL = 20;
    static final String USAGE = "usage: dogama-agent audit verify [--config FILE | --key KEYFILE] [DIR]"
            + " | audit tail [--config FILE | --dir DIR] [N]";

    private AuditCommand() {
    }

    static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.isEmpty()) {
            err.println(USAGE);
            return Launcher.USAGE;
        }
        String verb = args.getFirst();
        Path config = null;
        Path key = null;
        Path dir = null;
        String positional = null;
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            if ((a.equals("--config") || a.equals("--key") || a.equals("--dir")) && i + 1 < args.size()) {
                Path p = Path.of(args.get(++i));
                switch (a) {
                    case "--config" -> config = p;
                    case "--key" -> key = p;
                    default -> dir = p;
                }
            } else if (positional == null && !a.startsWith("--")) {
                positional = a;
            } else {
                err.println(USAGE);
                return Launcher.USAGE;
            }
        }
        if (config == null && key == null && dir == null && env.containsKey(Launcher.CONFIG_ENV)) {
            config = Path.of(env.get(Launcher.CONFIG_ENV));
        }
        try {
            AdminConfig c = config == null ? null : AgentProcess.readConfig(config);
            return switch (verb) {
                case "verify" -> {
                    if (dir != null) {
                        err.println(USAGE);
                        yield Launcher.USAGE;
                    }
                    Path logDir = positional != null ? Path.of(positional) : c != null ? c.audit().dir() : null;
                    Path keyFile = key != null ? key : c != null ? c.dataDir().resolve(AuditLog.KEY_FILE_NAME) : null;
                    if (logDir == null || keyFile == null) {
                        err.println(USAGE);
                        yield Launcher.USAGE;
                    }
                    // The configured log is the agent's own: its anchor applies. A folder named here may be an
                    // archive or a copy, which the anchor of the live log does not describe.
                    yield verify(logDir, keyFile, positional == null && key == null, out);
                }
                case "tail" -> {
                    Path logDir = dir != null ? dir : c != null ? c.audit().dir() : null;
                    int n;
                    try {
                        n = positional == null ? DEFAULT_TAIL : Integer.parseInt(positional);
                    } catch (NumberFormatException e) {
                        n = 0;
                    }
                    if (logDir == null || key != null || n < 1) {
                        err.println(USAGE);
                        yield Launcher.USAGE;
                    }
                    AuditLog.tail(logDir, n).forEach(out::println);
                    yield 0;
                }
                default -> {
                    err.println(USAGE);
                    yield Launcher.USAGE;
                }
            };
        } catch (StartupException e) {
            err.println("dogama-agent: audit: " + e.reason());
            return UNREADABLE;
        } catch (AuditException e) {
            err.println("dogama-agent: " + e.getMessage());
            return UNREADABLE;
        }
    }

    private static int verify(Path dir, Path key, boolean own, PrintStream out) throws AuditException {
        return switch (AuditLog.verify(dir, key, own)) {
            case Verification.Intact ok -> {
                out.println("audit: intact: " + ok.lines() + " line(s) in " + ok.files() + " file(s), last seq "
                        + ok.lastSeq());
                yield 0;
            }
            case Verification.Broken b -> {
                out.println("audit: BROKEN at " + b.describe());
                yield 1;
            }
        };
    }
}
