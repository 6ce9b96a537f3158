package io.dogama.agent.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectImageResponse;
import com.github.dockerjava.api.command.WaitContainerResultCallback;
import com.github.dockerjava.api.model.ContainerConfig;
import com.github.dockerjava.api.model.HostConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What scripts/image builds: a minimal FROM-scratch image, its AOT cache, and the same ID for the same inputs. */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ImageTest {
    static final String APP = "/opt/dogama-agent";
    static final String JAVA = APP + "/bin/java";
    static final String AOT_OPTION = "-XX:AOTCache=" + APP + "/lib/agent.aot";
    static final long RUN_TIMEOUT_S = 60;

    private static Engine engine;
    private static AgentImage.Built image;

    @BeforeAll
    static void build() {
        engine = Engine.get();
        image = AgentImage.get();
    }

    @Test
    void configRunsJavaDirectlyAsTheNumericUser() {
        InspectImageResponse i = engine.client.inspectImageCmd(image.id()).exec();
        ContainerConfig c = i.getConfig();
        assertEquals("linux", i.getOs());
        assertEquals("10001:10001", c.getUser());
        List<String> entrypoint = Arrays.asList(c.getEntrypoint());
        assertEquals(JAVA, entrypoint.getFirst(), "no launcher script: there is no shell");
        assertTrue(entrypoint.contains(AOT_OPTION), "entrypoint " + entrypoint);
        assertEquals(List.of("-m", "io.dogama.agent.app/io.dogama.agent.app.Main"),
                entrypoint.subList(entrypoint.size() - 2, entrypoint.size()));
        assertTrue(c.getCmd() == null || c.getCmd().length == 0, "Cmd " + Arrays.toString(c.getCmd()));
        assertTrue(Arrays.asList(c.getEnv()).contains("DOGAMA_AGENT_CONFIG=/etc/dogama-agent/config.json"),
                Arrays.toString(c.getEnv()));
        assertTrue(c.getExposedPorts() == null || c.getExposedPorts().length == 0, "exposes ports");
        assertTrue(c.getVolumes() == null || c.getVolumes().isEmpty(), "declares volumes " + c.getVolumes());
        // The health check is the agent's own JVM with the same options, in exec form.
        List<String> health = c.getHealthcheck().getTest();
        assertEquals(List.of("CMD"), health.subList(0, 1));
        assertEquals(entrypoint, health.subList(1, health.size() - 1));
        assertEquals("health", health.getLast());
    }

    @Test
    void holdsTheRuntimeAndGlibcOnly() throws IOException {
        Map<String, TarArchiveEntry> files = rootFileSystem();
        assertTrue(files.size() > 100, "suspiciously few entries: " + files.size());
        List<String> executables = new ArrayList<>();
        for (Map.Entry<String, TarArchiveEntry> e : files.entrySet()) {
            String path = e.getKey();
            String base = path.substring(path.lastIndexOf('/') + 1);
            TarArchiveEntry t = e.getValue();
            assertTrue(t.isDirectory() || !List.of("sh", "bash", "dash", "ash", "busybox", "apt", "apt-get", "dpkg",
                    "rpm", "apk", "dogama-agent").contains(base), "found " + path);
            if (t.isFile() && !t.isSymbolicLink() && !t.isLink() && (t.getMode() & 0111) != 0 && !base.endsWith(".so") && !base.matches(".*\\.so\\.[0-9]+")) {
                executables.add(path);
            }
            if (!path.equals("tmp") && !t.isSymbolicLink()) {
                assertEquals(0, t.getMode() & 0002, "world-writable: " + path);
            }
        }
        assertEquals(List.of("opt/dogama-agent/bin/java"), executables, "executables other than java");
        for (String lib : List.of("lib/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                "opt/dogama-agent/lib/agent.aot", "opt/dogama-agent/lib/modules", "opt/dogama-agent/lib/server/libjvm.so",
                "etc/passwd", "etc/group", "usr/share/doc/libc6/copyright")) {
            assertTrue(files.containsKey(lib), "missing " + lib);
        }
        assertTrue(files.get("lib64/ld-linux-x86-64.so.2").isSymbolicLink(), "/lib64/ld-linux-x86-64.so.2 is not a link");
        TarArchiveEntry tmp = files.get("tmp");
        assertEquals(01777, tmp.getMode() & 07777, "/tmp mode");
        TarArchiveEntry data = files.get("var/lib/dogama-agent");
        assertEquals(10001, data.getLongUserId(), "data directory owner");
        assertEquals(0700, data.getMode() & 07777, "data directory mode");
    }

    @Test
    void passwdNamesTheNumericUserWithoutAShell() throws IOException {
        String passwd = readFile("/etc/passwd");
        assertTrue(passwd.lines().anyMatch(l -> l.startsWith("dogama-agent:x:10001:10001:")), passwd);
        assertTrue(passwd.lines().allMatch(l -> l.endsWith(":/nonexistent")), "a login shell in " + passwd);
        assertTrue(readFile("/etc/group").lines().anyMatch(l -> l.equals("dogama-agent:x:10001:")));
    }

    @Test
    void aotCacheIsAcceptedByTheImagesJvm() {
        List<String> entrypoint = Arrays.asList(engine.client.inspectImageCmd(image.id()).exec().getConfig().getEntrypoint());
        // AOTMode=on: the JVM refuses to start when it cannot use the cache.
        assertEquals(0, runWith(strict(entrypoint, AOT_OPTION)), "the image's JVM does not accept its AOT cache");
        // The same check must be able to fail: a cache it does not have.
        assertNotEquals(0, runWith(strict(entrypoint, "-XX:AOTCache=" + APP + "/lib/no-such.aot")));
    }

    /**
     * SPEC section 12: the container's JVM exits on an OutOfMemoryError. The option comes from the
     * runtime's own options (jlink --add-options), not from the entrypoint: the very JVM of the
     * entrypoint reports it in effect, and from the image.
     */
    @Test
    void theEntrypointsJvmExitsOnOutOfMemory() throws InterruptedException {
        List<String> cmd = new ArrayList<>();
        for (String a : engine.client.inspectImageCmd(image.id()).exec().getConfig().getEntrypoint()) {
            if (a.equals("-m")) {
                cmd.add("-XX:+PrintFlagsFinal");
                cmd.add("-XshowSettings:properties");
            }
            cmd.add(a);
        }
        cmd.add("--version");
        String id = engine.client.createContainerCmd(image.id()).withEntrypoint(cmd)
                .withHostConfig(HostConfig.newHostConfig().withNetworkMode("none").withReadonlyRootfs(true)).exec().getId();
        try {
            engine.client.startContainerCmd(id).exec();
            assertEquals(0, engine.client.waitContainerCmd(id).exec(new WaitContainerResultCallback())
                    .awaitStatusCode(RUN_TIMEOUT_S, TimeUnit.SECONDS));
            StringBuilder out = new StringBuilder();
            engine.client.logContainerCmd(id).withStdOut(true).withStdErr(true)
                    .exec(new com.github.dockerjava.api.async.ResultCallback.Adapter<com.github.dockerjava.api.model.Frame>() {
                        @Override
                        public void onNext(com.github.dockerjava.api.model.Frame frame) {
                            out.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                        }
                    }).awaitCompletion(RUN_TIMEOUT_S, TimeUnit.SECONDS);
            String flag = out.toString().lines().filter(l -> l.contains(" ExitOnOutOfMemoryError ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no ExitOnOutOfMemoryError in " + out));
            assertTrue(flag.matches("\\s*bool ExitOnOutOfMemoryError\\s+= true\\s+\\{product\\} \\{jimage\\}\\s*"), flag);
            // The image's LC_CTYPE=C.UTF-8 needs glibc's C.utf8 locale files: without them the JVM names files in ASCII,
            // and every bind source or check-disk path with another character is refused (a review found it so).
            assertTrue(out.toString().lines().anyMatch(l -> l.strip().equals("sun.jnu.encoding = UTF-8")),
                    () -> "file names are not read as UTF-8: " + out.toString().lines()
                            .filter(l -> l.contains("sun.jnu.encoding")).toList());
            // A core dump would hold the secret, the keys and plans' env values.
            String core = out.toString().lines().filter(l -> l.contains(" CreateCoredumpOnCrash ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no CreateCoredumpOnCrash in " + out));
            assertTrue(core.matches("\\s*bool CreateCoredumpOnCrash\\s+= false\\s+\\{product\\} \\{jimage\\}\\s*"), core);
        } finally {
            engine.client.removeContainerCmd(id).withForce(true).exec();
        }
    }

    private static List<String> strict(List<String> entrypoint, String aotOption) {
        List<String> cmd = new ArrayList<>();
        for (String a : entrypoint) {
            if (a.equals("-m")) {
                cmd.add("-XX:AOTMode=on");
            }
            cmd.add(a.startsWith("-XX:AOTCache=") ? aotOption : a);
        }
        cmd.add("--version");
        return cmd;
    }

    /** Runs the image with this entrypoint, no network, and returns the exit status. */
    private static int runWith(List<String> entrypoint) {
        String id = engine.client.createContainerCmd(image.id()).withEntrypoint(entrypoint)
                .withHostConfig(HostConfig.newHostConfig().withNetworkMode("none").withReadonlyRootfs(true)).exec().getId();
        try {
            engine.client.startContainerCmd(id).exec();
            return engine.client.waitContainerCmd(id).exec(new WaitContainerResultCallback())
                    .awaitStatusCode(RUN_TIMEOUT_S, TimeUnit.SECONDS);
        } finally {
            engine.client.removeContainerCmd(id).withForce(true).exec();
        }
    }

    @Test
    void sameInputsGiveTheSameImageId() {
        AgentImage.Built again = AgentImage.build();
        assertEquals(image.id(), again.id(), "scripts/image gave another ID for unchanged inputs");
        assertEquals(image.tag(), again.tag());
    }

    /** Every entry of the image's file system, by path without the leading slash. */
    private static Map<String, TarArchiveEntry> rootFileSystem() throws IOException {
        Map<String, TarArchiveEntry> files = new TreeMap<>();
        String id = engine.client.createContainerCmd(image.id()).exec().getId();
        try (InputStream in = engine.client.copyArchiveFromContainerCmd(id, "/").exec();
             TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                String name = e.getName().replaceFirst("^\\./", "").replaceFirst("^/", "").replaceFirst("/$", "");
                if (!name.isEmpty()) {
                    files.put(name, e);
                }
            }
        } finally {
            engine.client.removeContainerCmd(id).withForce(true).exec();
        }
        // Docker adds its own mount points to every container (/dev, /proc, /sys, /etc/hosts, ...):
        // they are not the image's.
        files.keySet().removeIf(p -> p.matches("(dev|proc|sys)(/.*)?|etc/(hosts|hostname|resolv\\.conf)|\\.dockerenv"));
        return files;
    }

    private static String readFile(String path) throws IOException {
        String id = engine.client.createContainerCmd(image.id()).exec().getId();
        try (InputStream in = engine.client.copyArchiveFromContainerCmd(id, path).exec();
             TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry e = tar.getNextEntry();
            assertTrue(e != null && e.isFile(), path + " is not a file in the image");
            return new String(tar.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            engine.client.removeContainerCmd(id).withForce(true).exec();
        }
    }
}
