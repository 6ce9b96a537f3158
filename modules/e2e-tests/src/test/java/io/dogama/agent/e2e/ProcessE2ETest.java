package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The agent as a process (SPEC sections 9 and 12, revision 1.1), run from the runtime image by its
 * launcher {@code bin/dogama-agent}: the launcher's PID is the JVM, SIGTERM to it stops the agent
 * gracefully, an {@code OutOfMemoryError} or the loss of the HTTP listener ends the process non-zero
 * (so that a supervisor restarts it), and the data directory and its files are private to the agent.
 */
class ProcessE2ETest {
    @RegisterExtension
    static final E2E e2e = new E2E();

    /** Longest wait for the process to end by itself. */
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(60);
    /** The JVM's status after a graceful stop on SIGTERM (128 + 15). */
    private static final int SIGTERM_STATUS = 143;
    /** The JVM's status on an OutOfMemoryError with -XX:+ExitOnOutOfMemoryError. */
    private static final int OOM_STATUS = 3;
    /** The agent's status when its listener died (Launcher.LISTENER_DIED). */
    private static final int LISTENER_DIED_STATUS = 70;
    /** The agent's status when it refuses to start (Launcher.REFUSED). */
    private static final int REFUSED_STATUS = 78;
    /** A UID that is not the test's (nor, in practice, anyone's on the build machine). */
    private static final int OTHER_UID = 4242;

    @AfterEach
    void agentRunsForTheNextTest() {
        e2e.ensureRunning();
    }

    @Test
    void theLaunchersProcessIsTheJvmAndSigtermStopsItGracefully() throws Exception {
        Process p = e2e.process();
        Path java = RepoLayout.root().resolve("jlink/target/dogama-agent/bin/java").toRealPath();
        assertEquals(java, Files.readSymbolicLink(Path.of("/proc", String.valueOf(p.pid()), "exe")),
                "the launcher's PID runs the image's java (the launcher execs it)");
        assertEquals(List.of(), p.toHandle().children().toList(), "no process below the launcher's");
        // The runtime image's own options are in effect in this very JVM.
        String flags = run(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(p.pid()), "VM.flags"), Map.of()).output();
        assertTrue(flags.contains("-XX:+ExitOnOutOfMemoryError"), flags);
        // The heap the memory budget is stated for (docs/performance.md, "Memory"), not the JVM's default.
        assertTrue(flags.contains("-XX:+UseSerialGC"), flags);
        assertTrue(flags.contains("-XX:MaxHeapSize=100663296"), flags);
        // The young generation whose survivor spaces hold what 32 connections have in flight at a collection.
        assertTrue(flags.contains("-XX:MaxNewSize=16777216"), flags);
        assertTrue(flags.contains("-XX:SurvivorRatio=4"), flags);
        assertTrue(flags.contains("-XX:TrimNativeHeapInterval=2000"), flags);
        // No perf data file outside the data directory (jcmd above reached the JVM without it).
        assertTrue(flags.contains("-XX:-UsePerfData"), flags);
        Path perfData = Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"), String.valueOf(p.pid()));
        assertFalse(Files.exists(perfData, LinkOption.NOFOLLOW_LINKS), perfData + " exists");
        // The JIT's compiler threads at nice 10 and every other thread at 0 (jlink/pom.xml says why), read from the
        // kernel thread by thread. Without root the JVM can only lower a priority: from a higher nice than those, its
        // threads keep the one they were started with.
        int own = ownNice();
        boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        assertEquals(Map.of("compiler", Set.of(root ? 10 : Math.max(10, own)), "other", Set.of(root ? 0 : Math.max(0, own))),
                threadNices(p.pid()));
        // No compiler, no expression language (squirrel names it: jlink/src/module-info/squirrel.foundation) and no
        // library that reaches native code or raw memory besides junixsocket in the runtime this agent runs on.
        String modules = run(List.of(java.toString(), "--list-modules"), Map.of()).output();
        assertTrue(modules.contains("java.base@") && modules.contains("squirrel.foundation"), modules);
        for (String absent : List.of("jdk.compiler@", "mvel2", "chronicle", "net.openhft", "com.sun.jna", "jnr")) {
            assertFalse(modules.contains(absent), absent + " in " + modules);
        }
        // No package of the JDK is opened or exported to a library, and no library may use sun.misc.Unsafe's memory
        // access (Java 25 warns on its first use, which aStartLogsNoLibraryBannerOrJvmWarning would see).
        String commandLine = run(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(p.pid()), "VM.command_line"), Map.of()).output();
        assertTrue(commandLine.contains("--enable-native-access=org.newsclub.net.unix"), commandLine);
        for (String option : List.of("--add-opens", "--add-exports", "--sun-misc-unsafe-memory-access", "--add-modules")) {
            assertFalse(commandLine.contains(option), option + " in " + commandLine);
        }

        int logged = e2e.logText().length();
        // SIGTERM to the launcher's PID, as a supervisor sends it (through the handle: Process.destroy
        // would also close this side of the agent's output before the agent has written its last lines).
        assertTrue(p.toHandle().destroy(), "SIGTERM sent");
        assertTrue(p.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the agent ignored SIGTERM");
        assertEquals(SIGTERM_STATUS, p.exitValue(), "the JVM's status after a stop on SIGTERM");
        String stop = e2e.awaitLog(logged, "dogama-agent: stopped", EXIT_TIMEOUT);
        int stopping = stop.indexOf("dogama-agent: stopping");
        assertTrue(stopping >= 0 && stopping < stop.indexOf("dogama-agent: stopped"), stop);
        assertEquals(SIGTERM_STATUS, e2e.stopAgent(), "already stopped");
    }

    @Test
    void aStartLogsNoLibraryBannerOrJvmWarning() throws Exception {
        // A signed request has gone through every library the agent uses (the world's agent answered health).
        assertEquals(200, e2e.wire().get("/v1/instances").status());
        String log = e2e.logText();
        assertTrue(log.contains("app: agent started in"), log);
        assertTrue(log.contains("registry: opened with"), "the registry opened in this log: " + log);
        // The JVM's own warnings (sun.misc.Unsafe's memory access, a restricted method, an agent loaded), and the
        // banners Chronicle printed when the registry was a Chronicle Map.
        for (String banner : List.of("WARNING: A terminally deprecated method", "sun.misc.Unsafe",
                "WARNING: A restricted method", "--enable-native-access", "Leave your e-mail", "Process id: ")) {
            assertFalse(log.contains(banner), banner + " in " + log);
        }
    }

    @Test
    void theProcessEndsWhenItsListenerDies() throws Exception {
        Process p = e2e.process();
        int port = e2e.listenPort();
        int logged = e2e.logText().length();
        // The kernel destroys the listening socket (as any failure of the listener would end it); the
        // JVM and Helidon's server object live on.
        Result ss = run(List.of("ss", "-K", "-t", "state", "listening", "sport", "=", ":" + port), Map.of());
        assertEquals(0, ss.status(), "ss -K (needs CONFIG_INET_DIAG_DESTROY): " + ss.output());
        assertTrue(p.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the agent lived on without a listener");
        assertEquals(LISTENER_DIED_STATUS, p.exitValue());
        String log = e2e.awaitLog(logged, "dogama-agent: stopped", EXIT_TIMEOUT);
        assertTrue(log.contains("is gone (connection refused)"), log);
        e2e.stopAgent();
    }

    @Test
    void anOutOfMemoryErrorEndsTheProcess() throws Exception {
        e2e.stopAgent();
        // A heap too small for the agent: it runs out while it starts, in whichever thread. The launcher
        // and the image's options are the production ones; JDK_JAVA_OPTIONS only sets the heap size (all three:
        // the image's initial 32 MiB and young 16 MiB may not exceed a smaller maximum). The smallest heap the JVM
        // accepts: since session 30 a start fits in 3 MiB (4 MiB, used here before, let it start and serve).
        Result r = run(List.of(RepoLayout.agentLauncher().toString(), "--config", e2e.config().toString()),
                Map.of("JDK_JAVA_OPTIONS", "-Xms2m -Xmx2m -Xmn1m"));
        assertEquals(OOM_STATUS, r.status(), r.output());
        assertTrue(r.output().contains("Terminating due to java.lang.OutOfMemoryError"), r.output());
    }

    @Test
    void theDataDirectoryAndEveryFileInItArePrivate() throws Exception {
        Path data = e2e.dataDir();
        e2e.stopAgent();
        // Writable by the group: refused, and left as it is.
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwx---"));
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", e2e.config().toString()),
                Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: data directory " + data
                + " is writable by group or others"), refused.output());
        assertEquals("rwxrwx---", mode(data));

        // Missing: created 0700, and every file the agent makes in it 0600, whatever the umask (000 here).
        deleteTree(data);
        launchWithUmask000();
        assertEquals("rwx------", mode(data));
        Map<String, String> modes = modes(data);
        assertTrue(modes.keySet().containsAll(List.of("registry.dat", "registry.key", "registry.lock")), modes.toString());
        modes.forEach((name, mode) -> assertTrue(mode.equals("rw-------") || mode.equals("d rwx------"), name + " " + mode));
        assertEquals(200, e2e.wire().get("/v1/health").status());
        e2e.stopAgent();
        modes(data).forEach((name, mode) -> assertTrue(mode.equals("rw-------") || mode.equals("d rwx------"),
                name + " " + mode + " after the stop"));
    }

    /**
     * Each of the three lock files made a hard link to a file the agent reads and closes: its POSIX lock would be
     * dropped at the first close of that file, and a second agent could open the same files. The real agent refuses
     * to start and names the file; it starts again once the second name is gone.
     */
    @Test
    void aLockFileWithASecondNameRefusesTheStart() throws Exception {
        Path data = e2e.dataDir();
        e2e.stopAgent();
        Map<String, String> planted = Map.of("registry.lock", "registry.key", "nonces.lock", "nonces.journal",
                "audit/audit.lock", "audit.key");
        for (Map.Entry<String, String> p : planted.entrySet()) {
            Path lock = data.resolve(p.getKey());
            Files.delete(lock);
            Files.createLink(lock, data.resolve(p.getValue()));
            try {
                Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config",
                        e2e.config().toString()), Map.of());
                assertEquals(REFUSED_STATUS, refused.status(), p + ": " + refused.output());
                assertTrue(refused.output().contains(lock + " is the same file as " + data.resolve(p.getValue())),
                        p + ": " + refused.output());
            } finally {
                Files.delete(lock); // the agent makes it again; the class's later tests start as before
            }
        }
        // A hard-link backup of the whole data directory (cp -al, rsnapshot), taken after a run made the lock files
        // again: every file gets a second name, outside the folders the agent reads. The agent never opens those
        // names, so its locks hold and it starts.
        e2e.ensureRunning();
        e2e.stopAgent();
        Path backup = Files.createDirectories(e2e.base().resolve("backup-" + System.nanoTime()));
        try (Stream<Path> files = Files.walk(data)) {
            for (Path f : files.toList()) {
                Path copy = backup.resolve(data.relativize(f).toString());
                if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(copy);
                } else if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createLink(copy, f);
                }
            }
        }
        assertTrue(Files.isRegularFile(backup.resolve("registry.lock")), "the backup holds the lock files too");
        e2e.ensureRunning();
        assertEquals(200, e2e.wire().get("/v1/health").status());
    }

    /**
     * A configured audit folder outside the data directory is the agent's own as the data directory is:
     * writable by others, someone could remove its lines.
     */
    @Test
    void anAuditDirectoryOutsideTheDataDirectoryWritableByOthersIsRefused() throws Exception {
        Path audit = Files.createDirectory(e2e.base().resolve("audit-elsewhere"));
        Files.setPosixFilePermissions(audit, PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        c.put("audit", Map.of("dir", audit.toString()));
        Path config = e2e.base().resolve("config-audit-elsewhere.json");
        Files.writeString(config, Json.write(c));
        e2e.stopAgent();
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: audit directory " + audit
                + " is writable by group or others"), refused.output());
        try (Stream<Path> files = Files.list(audit)) {
            assertEquals(List.of(), files.toList(), "no audit line was written there");
        }
    }

    /**
     * The agent takes no configuration from the folder it is started in. A library may read a {@code
     * system.properties} from the working directory, else from its parent, and add what it holds to the JVM's
     * system properties (chronicle-core did, when the registry was a Chronicle Map; a library's native-library
     * override, for one, would then be taken); both files are planted here, and neither may reach the agent's JVM.
     */
    @Test
    void noFileInTheWorkingDirectoryOrItsParentSetsASystemProperty() throws Exception {
        Path parent = Files.createDirectories(e2e.base().resolve("planted"));
        Path cwd = Files.createDirectories(parent.resolve("cwd"));
        Files.writeString(parent.resolve("system.properties"), "dogama.e2e.planted=parent\n");
        Files.writeString(cwd.resolve("system.properties"), "dogama.e2e.planted=cwd\n");
        Path wrapper = e2e.base().resolve("planted-launcher");
        Files.writeString(wrapper, "#!/bin/sh\ncd " + cwd + " || exit 1\nexec " + RepoLayout.agentLauncher() + " \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));

        e2e.stopAgent();
        e2e.launchWith(wrapper); // the working directory's file
        assertNotPlanted(e2e.process());
        e2e.stopAgent();
        Files.delete(cwd.resolve("system.properties"));
        e2e.launchWith(wrapper); // its parent's, read when the working directory has none
        assertNotPlanted(e2e.process());
        e2e.stopAgent();
    }

    /**
     * What the agent trusts at start may be changed by root and the agent only: the config file names the
     * secret file and the host folders containers may mount, the secret decides who may drive the agent.
     */
    @Test
    void aConfigOrSecretFileSomeoneElseMayChangeIsRefused() throws Exception {
        Path open = e2e.base().resolve("config-writable-by-others.json");
        Files.copy(e2e.config(), open);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-rw-rw-"));
        e2e.stopAgent();
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", open.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: config file " + open + ": " + open
                + " is writable by group or others (mode 0666)"), refused.output());

        assertEquals(0, Files.getAttribute(Path.of("/proc/self"), "unix:uid"), "giving a file away needs root: the "
                + "tests run as root (scripts/test, .ci/run); skipped, this refusal would go untested");
        Path secret = e2e.base().resolve("secret-of-someone-else");
        Files.copy(Path.of((String) Json.parse(e2e.config()).get("secretFile")), secret);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.setAttribute(secret, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        c.put("secretFile", secret.toString());
        Path config = e2e.base().resolve("config-secret-of-someone-else.json");
        Files.writeString(config, Json.write(c));
        refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: secret file " + secret + ": " + secret
                + " is owned by UID " + OTHER_UID), refused.output());
    }

    /** Whoever may replace the engine socket would be sent every plan and could answer in the engine's name. */
    @Test
    void aDockerSocketInAFolderOthersMayChangeIsRefused() throws Exception {
        Path open = Files.createDirectory(e2e.base().resolve("socket-folder-open-to-all"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        Path socket = Files.createSymbolicLink(open.resolve("docker.sock"), Path.of((String) c.get("dockerSocket")));
        c.put("dockerSocket", socket.toString());
        Path config = e2e.base().resolve("config-socket-in-open-folder.json");
        Files.writeString(config, Json.write(c));
        e2e.stopAgent();
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: docker socket " + socket + ": " + open
                + " is writable by group or others (mode 0777)"), refused.output());
    }

    /**
     * The metrics file is rewritten by name every 15 s, by an agent that may run as root: in a folder where
     * others may rename its files, one swapped for a link would have the link's target rewritten and made
     * 0644. Such a folder is refused unless it is sticky (TrustedPathTest covers that exception).
     */
    @Test
    void aMetricsFileInAFolderOthersMayChangeIsRefused() throws Exception {
        Path shared = Files.createDirectory(e2e.base().resolve("textfile-folder-shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        Path metrics = shared.resolve("dogama.prom");
        c.put("metricsFile", metrics.toString());
        Path config = e2e.base().resolve("config-metrics-in-shared-folder.json");
        Files.writeString(config, Json.write(c));
        e2e.stopAgent();
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: metrics file " + metrics + ": " + shared
                + " is writable by group or others (mode 0777)"), refused.output());
        assertFalse(Files.exists(metrics), "nothing was written there");
    }

    /**
     * An audit folder inside the data directory was not checked at all: with the data directory open to others for
     * reading and entering (warned, not refused), an audit folder anyone may write let them delete the current file
     * or plant one at the next rotation's name. It is checked wherever it is.
     */
    @Test
    void anAuditFolderOthersMayWriteInsideTheDataDirectoryIsRefused() throws Exception {
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        Path audit = Files.createDirectory(e2e.dataDir().resolve("audit-open-to-all"));
        Files.setPosixFilePermissions(audit, PosixFilePermissions.fromString("rwxrwxrwx"));
        c.put("audit", Map.of("dir", audit.toString()));
        Path config = e2e.base().resolve("config-audit-open-inside-data.json");
        Files.writeString(config, Json.write(c));
        e2e.stopAgent();
        try {
            Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()),
                    Map.of());
            assertEquals(REFUSED_STATUS, refused.status(), refused.output());
            // Refused as an entry of the data directory others may write (session 40), before its own check.
            assertTrue(refused.output().contains("data directory " + e2e.dataDir()
                    + " holds entries writable by group or others: audit-open-to-all (rwxrwxrwx)"), refused.output());
        } finally {
            deleteTree(audit); // a start that was not refused has written there
        }
    }

    /**
     * Below an allowed root every folder on the way to a bind source is checked per plan; above it, whoever
     * could rename a folder could swap the root for a link after a plan was checked, and the engine would
     * mount what the link points to at the container's next start.
     */
    @Test
    void anAllowedRootBelowAFolderOthersMayChangeIsRefused() throws Exception {
        Path shared = Files.createDirectory(e2e.base().resolve("folder-open-to-all"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path root = Files.createDirectory(shared.resolve("instances"));
        Map<String, Object> c = new TreeMap<>(Json.parse(e2e.config()));
        c.put("allowedRoots", Map.of("instances", root.toString()));
        Path config = e2e.base().resolve("config-root-below-open-folder.json");
        Files.writeString(config, Json.write(c));
        e2e.stopAgent();
        Result refused = run(List.of(RepoLayout.agentLauncher().toString(), "--config", config.toString()), Map.of());
        assertEquals(REFUSED_STATUS, refused.status(), refused.output());
        assertTrue(refused.output().contains("refusing to start: allowed root instances " + root + ": " + shared
                + " is writable by group or others (mode 0777)"), refused.output());
    }

    /**
     * junixsocket's JNI library is the runtime's own file, loaded from there: junixsocket would otherwise
     * copy it out of its jar into {@code java.io.tmpdir} (else the home or the working directory) at every
     * start and load the copy, native code from a file written a moment before where others may write.
     */
    @Test
    void theJniLibraryIsLoadedFromTheRuntimeAndNoCopyIsWritten() throws Exception {
        Path tmp = Files.createDirectories(e2e.base().resolve("jni-tmp"));
        Path wrapper = e2e.base().resolve("jni-tmp-launcher");
        Files.writeString(wrapper, "#!/bin/sh\nJDK_JAVA_OPTIONS=-Djava.io.tmpdir=" + tmp + "\nexport JDK_JAVA_OPTIONS\nexec "
                + RepoLayout.agentLauncher() + " \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        e2e.stopAgent();
        e2e.launchWith(wrapper); // answered a signed health check: the engine socket was used
        Path own = RepoLayout.agentLauncher().getParent().getParent().toRealPath().resolve("lib/libjunixsocket-native.so");
        List<String> mapped;
        try (Stream<String> maps = Files.lines(Path.of("/proc", String.valueOf(e2e.process().pid()), "maps"))) {
            mapped = maps.filter(l -> l.contains("junixsocket")).map(l -> l.substring(l.indexOf('/'))).distinct().toList();
        }
        assertEquals(List.of(own.toString()), mapped, "the JNI library the agent mapped");
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of(), files.toList(), "nothing written to java.io.tmpdir");
        }
        e2e.stopAgent();
    }

    /** Without its own file the runtime has no other copy to fall back on: the agent refuses to start. */
    @Test
    void aRuntimeWithoutItsJniLibraryRefusesToStartAndExtractsNothing() throws Exception {
        Path copy = copyOfTheRuntime("runtime-without-jni");
        try {
            Files.deleteIfExists(copy.resolve("lib/libjunixsocket-native.so"));
            Path tmp = Files.createDirectories(e2e.base().resolve("jni-tmp-refused"));
            e2e.stopAgent();
            Result refused = run(List.of(copy.resolve("bin/dogama-agent").toString(), "--config", e2e.config().toString()),
                    Map.of("JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + tmp));
            assertEquals(REFUSED_STATUS, refused.status(), refused.output());
            assertTrue(refused.output().contains("junixsocket's JNI library did not load"), refused.output());
            try (Stream<Path> files = Files.list(tmp)) {
                assertEquals(List.of(), files.toList(), "nothing written to java.io.tmpdir");
            }
        } finally {
            deleteTree(copy);
        }
    }

    @Test
    void aRuntimeWhoseLibrariesOthersMayChangeRefusesToStart() throws Exception {
        Path copy = copyOfTheRuntime("runtime-group-writable");
        try {
            // junixsocket's library is loaded at the first engine call, after the process began: whoever may
            // rewrite it in between runs code as the agent.
            Path library = copy.resolve("lib/libjunixsocket-native.so");
            Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxrwxr-x"));
            e2e.stopAgent();
            Result refused = run(List.of(copy.resolve("bin/dogama-agent").toString(), "--config", e2e.config().toString()),
                    Map.of());
            assertEquals(REFUSED_STATUS, refused.status(), refused.output());
            assertTrue(refused.output().contains("java runtime " + copy.toRealPath()) && refused.output().contains(
                    library.toRealPath() + " is writable by group or others"), refused.output());
        } finally {
            deleteTree(copy);
        }
    }

    /** A copy of the linked runtime, modes kept, to spoil; the caller deletes it. */
    private static Path copyOfTheRuntime(String name) throws Exception {
        Path runtime = RepoLayout.agentLauncher().getParent().getParent();
        Path copy = e2e.base().resolve(name);
        Result cp = run(List.of("cp", "-a", runtime.toString(), copy.toString()), Map.of());
        assertEquals(0, cp.status(), cp.output());
        return copy;
    }

    private static void assertNotPlanted(Process agent) throws Exception {
        Path cwd = Path.of("/proc", String.valueOf(agent.pid()), "cwd").toRealPath();
        assertTrue(cwd.endsWith(Path.of("planted", "cwd")), "the agent runs in the planted folder: " + cwd);
        Result props = run(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(agent.pid()), "VM.system_properties"), Map.of());
        assertEquals(0, props.status(), props.output());
        // The registry is open (the agent answered a signed health check): every library has initialized.
        assertTrue(props.output().contains("java.home="), props.output());
        assertFalse(props.output().contains("dogama.e2e.planted"), props.output());
    }

    /**
     * Starts the world's agent as {@link AgentUnderTest} does, but from a shell whose umask is 000, so
     * that a file or folder created without an explicit mode would be open to everyone.
     */
    private static void launchWithUmask000() throws Exception {
        Path wrapper = e2e.base().resolve("umask000-launcher");
        Files.writeString(wrapper, "#!/bin/sh\numask 000\nexec " + RepoLayout.agentLauncher() + " \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
        e2e.launchWith(wrapper);
    }

    private record Result(int status, String output) {
    }

    private static Result run(List<String> command, Map<String, String> env) throws Exception {
        File out = File.createTempFile("dogama-e2e-process", ".out");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().remove("DOGAMA_AGENT_CONFIG");
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("e2e: " + command + " did not end within " + EXIT_TIMEOUT + ":\n"
                        + Files.readString(out.toPath(), StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out.toPath());
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /** @return the mode of every entry below {@code dir}, at any depth; folders' modes start with "d " */
    private static Map<String, String> modes(Path dir) throws IOException {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(f -> !f.equals(dir)).toList()) {
                modes.put(dir.relativize(f).toString(),
                        (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS) ? "d " : "") + mode(f));
            }
        }
        return modes;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the nice values of a process's threads: its JIT compiler threads, and all the others */
    private static Map<String, Set<Integer>> threadNices(long pid) throws IOException {
        Map<String, Set<Integer>> nices = new TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks.toList()) {
                String stat = Files.readString(task.resolve("stat"));
                // The name (field 2) is in parentheses and may hold blanks: the fields after it follow its ")".
                String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String kind = name.matches("C[12] CompilerThre.*") ? "compiler" : "other";
                nices.computeIfAbsent(kind, k -> new TreeSet<>()).add(Integer.parseInt(after[16]));
            }
        }
        return nices;
    }

    /** @return this test's own nice, which the launcher and the agent's JVM start with */
    private static int ownNice() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }
}
