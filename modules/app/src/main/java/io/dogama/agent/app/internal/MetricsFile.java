package io.dogama.agent.app.internal;

import io.dogama.agent.metrics.Metrics;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Writes the metrics to the configured {@code metricsFile} every {@link #INTERVAL}, for
 * node_exporter's textfile collector (Prometheus cannot sign requests). Each write is atomic: a
 * temporary file in the same folder, mode 0644 (the collector runs as another user), then a rename
 * over the old one, so a reader never sees half a file.
 *
 * <p>The temporary file is reached by its name after it was created (Java gives a new file no mode
 * past the umask, and no write through the descriptor that made it), so the folder must be one in
 * which nobody else can rename, remove or link the agent's files: in a folder shared with other
 * writers, a run as root could be made to change the mode and the content of any file. Every write
 * first checks the folder and every folder above it as the start checks its configured files
 * ({@link TrustedPath}): the folder may not exist yet at the start, or be handed to another user
 * while the agent runs, and the writer runs for as long as the agent does. The text is written without
 * following a link put in the temporary file's place; its mode cannot be (a mode change through a view
 * asked not to follow links still follows one, seen on JDK 25), which the folder's check makes safe.
 */
final class MetricsFile implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MetricsFile.class.getName());
    /** How often the file is rewritten (SPEC section 11). */
    static final Duration INTERVAL = Duration.ofSeconds(15);

    private static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r--r--");

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
                // The folder's check names paths and owners only; other failures by their kind alone.
                String why = e instanceof UntrustedFolder ? e.getMessage() : e.getClass().getSimpleName();
                LOG.log(System.Logger.Level.ERROR, "app: metrics file " + file + " cannot be written (" + why
                        + "); retrying every " + INTERVAL.toSeconds() + " s");
            }
        }
    }

    static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "the metrics file's folder does not exist");
        }
        try {
            TrustedPath.requireReplacedFile("metrics file", file);
        } catch (StartupException e) {
            throw new UntrustedFolder(e.getMessage());
        }
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp",
                PosixFilePermissions.asFileAttribute(MODE));
        try {
            // The creating call's mode is cut by the umask; the collector must be able to read it.
            Files.setPosixFilePermissions(tmp, MODE);
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS)) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The folder, or one above it, may be changed by someone other than root and the agent: nothing is written. */
    static final class UntrustedFolder extends IOException {
        @Serial
        private static final long serialVersionUID = 1L;

        UntrustedFolder(String message) {
            super(message);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
