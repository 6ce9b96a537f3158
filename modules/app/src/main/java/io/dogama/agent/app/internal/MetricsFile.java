package io.dogama.agent.app.internal;

import io.dogama.agent.metrics.Metrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Writes the metrics to the configured {@code metricsFile} every {@link #INTERVAL}, for
 * node_exporter's textfile collector (Prometheus cannot sign requests). Each write is atomic: a
 * temporary file in the same folder, mode 0644 (the collector runs as another user), then a rename
 * over the old one, so a reader never sees half a file.
 *
 * <p>The temporary file is reached by its name after it was created, and Java has no other way to give
 * it its mode: {@code chmod} by name follows a link put in its place, even through a view asked not to
 * follow links. So the folder must be one in which nobody else can rename or remove the agent's files,
 * which the start checks ({@link TrustedPath}: root's or the agent's, and not writable by others unless
 * sticky); in a folder shared with other writers a run as root could otherwise be made to change the
 * mode and the content of any file.
 */
final class MetricsFile implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MetricsFile.class.getName());
    /** How often the file is rewritten (SPEC section 11). */
    static final Duration INTERVAL = Duration.ofSeconds(15);

    private final Path file;
    private final Metrics metrics;
    private final ScheduledExecutorService timer;
    private volatile boolean failing;

    private MetricsFile(Path file, Metrics metrics) {
        this.file = file;
        this.metrics = metrics;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().name("dogama-metrics-file").daemon(true).unstarted(r));
    }

    /** Writes the file now (before the agent listens, so it exists once the agent is up), then every {@link #INTERVAL}. */
    static MetricsFile start(Path file, Metrics metrics) {
        MetricsFile m = new MetricsFile(file, metrics);
        m.writeQuietly();
        m.timer.scheduleWithFixedDelay(m::writeQuietly, INTERVAL.toMillis(), INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return m;
    }

    private void writeQuietly() {
        try {
            write(file, metrics.scrape());
            if (failing) {
                failing = false;
                LOG.log(System.Logger.Level.INFO, "app: metrics file " + file + " written again");
            }
        } catch (IOException | RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.log(System.Logger.Level.ERROR, "app: metrics file " + file + " cannot be written ("
                        + e.getClass().getSimpleName() + "); retrying every " + INTERVAL.toSeconds() + " s");
            }
        }
    }

    static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        try {
            // The creating call's mode is cut by the umask; the collector must be able to read it.
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
