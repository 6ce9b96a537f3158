package io.dogama.agent.docker;

import java.time.Duration;
import java.util.Objects;

/**
 * Every bound the engine client applies, read once when the client is created. The defaults are
 * the named constants of this record; {@link #DEFAULTS} holds them all.
 *
 * @param connectTimeout      longest wait to connect to the socket, or for a free connection when
 *                            {@code maxConnections} are in use
 * @param readTimeout         longest silence while reading one response (but see
 *                            {@link DockerEngine#stopContainer}: a stop waits longer)
 * @param requestTimeout      longest time for one whole request and its response
 * @param pingTimeout         longest time for one ping, so health checks answer fast
 * @param stopMargin          added to a stop or restart timeout to bound the whole call
 * @param pullTimeout         longest time for one image pull, progress stream included
 * @param maxHeaderBytes      largest status line plus headers (also: plus chunk trailers)
 * @param maxBodyBytes        largest buffered response body
 * @param maxListingBytes     largest listing of the running containers, read as it arrives (only the ports it
 *                            publishes are kept), not buffered
 * @param maxPullStreamBytes  largest pull progress stream, all messages together
 * @param maxPullMessageBytes largest single pull progress message
 * @param maxIdleConnections  keep-alive connections kept open between requests
 * @param maxConnections      connections open at once, idle or in use
 */
public record DockerLimits(
        Duration connectTimeout,
        Duration readTimeout,
        Duration requestTimeout,
        Duration pingTimeout,
        Duration stopMargin,
        Duration pullTimeout,
        int maxHeaderBytes,
        int maxBodyBytes,
        long maxListingBytes,
        long maxPullStreamBytes,
        int maxPullMessageBytes,
        int maxIdleConnections,
        int maxConnections) {

    /** Default connect timeout: a local socket either accepts at once or the engine is down. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Default read timeout: the engine measured 130-175 ms for a start; 30 s leaves room for load. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
    /** Default whole-request timeout. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** Default ping timeout (SPEC section 2: health is a bounded ping). */
    public static final Duration DEFAULT_PING_TIMEOUT = Duration.ofSeconds(2);
    /** Default margin over a stop timeout: the kill after the timeout and the exit take a moment. */
    public static final Duration DEFAULT_STOP_MARGIN = Duration.ofSeconds(30);
    /** Default pull timeout. */
    public static final Duration DEFAULT_PULL_TIMEOUT = Duration.ofMinutes(10);
    /** Default header limit: the engine sends about 250 bytes of headers. */
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    /** Default body limit: an inspect is about 8 KiB, a list of 1000 containers about 2 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
    /**
     * Default listing limit: a running container is about 2 KiB of the listing, so about 30,000 of them, three
     * times the most instances an agent may register (the host's other containers are listed too).
     */
    public static final long DEFAULT_MAX_LISTING_BYTES = 64L * 1024 * 1024;
    /** Default pull stream limit: a progress message is about 200 bytes. */
    public static final long DEFAULT_MAX_PULL_STREAM_BYTES = 64L * 1024 * 1024;
    /** Default limit of one pull progress message. */
    public static final int DEFAULT_MAX_PULL_MESSAGE_BYTES = 64 * 1024;
    /** Default number of idle keep-alive connections. */
    public static final int DEFAULT_MAX_IDLE_CONNECTIONS = 4;
    /** Default number of connections open at once. */
    public static final int DEFAULT_MAX_CONNECTIONS = 16;
    /** The connections kept for short calls: one in this many ({@link #maxLongCalls()}). */
    public static final int SHORT_CALL_SHARE = 4;

    /** All defaults. */
    public static final DockerLimits DEFAULTS = new DockerLimits(DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT,
            DEFAULT_REQUEST_TIMEOUT, DEFAULT_PING_TIMEOUT, DEFAULT_STOP_MARGIN, DEFAULT_PULL_TIMEOUT,
            DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_PULL_STREAM_BYTES,
            DEFAULT_MAX_PULL_MESSAGE_BYTES, DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_MAX_CONNECTIONS);

    /** Smallest header limit that still fits the engine's headers. */
    static final int MIN_HEADER_BYTES = 512;
    /** Smallest body limit that still fits an error or version answer. */
    static final int MIN_BODY_BYTES = 4096;

    /**
     * Validates every bound.
     *
     * @throws IllegalArgumentException if a timeout is not positive (or beyond a day), a size is
     *                                  below its minimum, or the connection counts disagree
     */
    public DockerLimits {
        positive(connectTimeout, "connectTimeout");
        positive(readTimeout, "readTimeout");
        positive(requestTimeout, "requestTimeout");
        positive(pingTimeout, "pingTimeout");
        positive(stopMargin, "stopMargin");
        positive(pullTimeout, "pullTimeout");
        if (maxHeaderBytes < MIN_HEADER_BYTES) {
            throw new IllegalArgumentException("docker: maxHeaderBytes below " + MIN_HEADER_BYTES);
        }
        if (maxBodyBytes < MIN_BODY_BYTES) {
            throw new IllegalArgumentException("docker: maxBodyBytes below " + MIN_BODY_BYTES);
        }
        if (maxListingBytes < MIN_BODY_BYTES) {
            throw new IllegalArgumentException("docker: maxListingBytes below " + MIN_BODY_BYTES);
        }
        if (maxPullMessageBytes < MIN_BODY_BYTES || maxPullStreamBytes < maxPullMessageBytes) {
            throw new IllegalArgumentException("docker: pull limits too small or inconsistent");
        }
        if (maxIdleConnections < 0 || maxConnections < 1 || maxIdleConnections > maxConnections) {
            throw new IllegalArgumentException("docker: connection counts inconsistent");
        }
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("docker: " + name + " must be positive and at most a day");
        }
    }

    /**
     * Calls that may hold a connection for minutes at once: a stop or restart waits for its timeout, a pull
     * for the registry. One in {@link #SHORT_CALL_SHARE} of {@link #maxConnections} (at least one, given two
     * or more) stays free for the short calls, health's ping and a create's look-ups among them, however many
     * long ones wait: sixteen stops of containers that ignore SIGTERM would otherwise leave health and every
     * create timing out.
     *
     * @return the long calls allowed at once, at least one
     */
    public int maxLongCalls() {
        return Math.max(1, maxConnections - Math.max(1, maxConnections / SHORT_CALL_SHARE));
    }
}
