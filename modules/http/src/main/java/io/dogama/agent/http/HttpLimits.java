package io.dogama.agent.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Listener address and every resource limit of the HTTP surface, each with a named default.
 *
 * @param host                  address to bind, e.g. {@code 0.0.0.0}
 * @param port                  port to bind, 0 for an ephemeral port
 * @param maxBodyBytes          largest accepted request body; default {@value #DEFAULT_MAX_BODY_BYTES} (SPEC
 *                              section 3), at most that
 * @param maxRequestLineBytes   longest request line; default {@value #DEFAULT_MAX_REQUEST_LINE_BYTES}
 * @param maxHeaderBytes        largest header block; default {@value #DEFAULT_MAX_HEADER_BYTES}
 * @param requestTimeout        the time a client has, from connecting and again from the end of each response,
 *                              to deliver its complete next request (line, headers and body); a client that
 *                              is slower, stalls, or keeps an idle connection open longer is disconnected;
 *                              the agent's own work on a request is not counted; default
 *                              {@link #DEFAULT_REQUEST_TIMEOUT}
 * @param maxConnections        open TCP connections at most; default {@value #DEFAULT_MAX_CONNECTIONS}
 * @param maxConcurrentRequests requests processed at once at most, further ones get 503 {@code busy}; default
 *                              {@value #DEFAULT_MAX_CONCURRENT_REQUESTS}
 */
public record HttpLimits(String host, int port, int maxBodyBytes, int maxRequestLineBytes, int maxHeaderBytes,
        Duration requestTimeout, int maxConnections, int maxConcurrentRequests) {

    /** 64 KiB, SPEC section 3. */
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /** 2 KiB: the longest route with a 63-character instance ID is well under 100 bytes. */
    public static final int DEFAULT_MAX_REQUEST_LINE_BYTES = 2048;
    /**
     * 2 KiB of headers: the three authentication headers need about 200 bytes, a whole request's about 500. Not
     * more, because an unauthenticated client keeps a header block open for the request timeout, and what Helidon
     * 4.5 holds for it grows faster than its bytes: each repeated {@code Connection} line copies every earlier value
     * (about 1.25 MB held for 8 KiB, 81 KB for 2 KiB), and every socket read of a line not yet ended is a node of its
     * own (about 85 bytes per byte trickled in). At 2 KiB, 63 such connections hold a few MiB of the heap, not all
     * of it.
     */
    public static final int DEFAULT_MAX_HEADER_BYTES = 2 * 1024;
    /** 10 s to deliver a request of at most 64 KiB, or to keep an idle connection. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /**
     * 1 KiB: the longest chunk-size line of a chunked request body (a size within 64 KiB needs 5 hex digits);
     * a longer one is 400 and closes the connection, so a size line cannot grow without bound.
     */
    public static final int MAX_CHUNK_LINE_BYTES = 1024;
    /**
     * 64 connections: the only client is the control plane. When all are taken, the oldest connection that
     * has not authenticated a request is closed to make room, so unauthenticated clients cannot keep the
     * control plane out (SPEC section 3).
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    /** 32 requests in progress at once. */
    public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 32;
    /** The requests kept for reads: one in this many ({@link #maxConcurrentMutations()}). */
    public static final int READ_SHARE = 4;
    /**
     * 10 s: how long the requests in progress at a stop signal may take to end before their connections are
     * closed (the agent closes its registry only after that). Within the 30 s a supervisor such as compose
     * gives a container to stop; a container's own stop timeout can be longer, and such a stop is then
     * finished by the next start's reconciliation.
     */
    public static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(10);

    /**
     * Validates every value.
     *
     * @throws IllegalArgumentException if a value is out of range: port outside 0..65535, a body limit outside
     *                                  1..{@value #DEFAULT_MAX_BODY_BYTES}, a line or header limit below 256 or
     *                                  above 1 MiB, a timeout not positive or above 10 minutes, a count below 1
     */
    public HttpLimits {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (host.isBlank()) {
            throw new IllegalArgumentException("http: host must not be blank");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("http: port out of range");
        }
        if (maxBodyBytes < 1 || maxBodyBytes > DEFAULT_MAX_BODY_BYTES) {
            throw new IllegalArgumentException("http: maxBodyBytes must be 1 to " + DEFAULT_MAX_BODY_BYTES);
        }
        checkSize("maxRequestLineBytes", maxRequestLineBytes);
        checkSize("maxHeaderBytes", maxHeaderBytes);
        checkDuration("requestTimeout", requestTimeout);
        if (maxConnections < 1 || maxConcurrentRequests < 1) {
            throw new IllegalArgumentException("http: connection and request counts must be at least 1");
        }
    }

    /**
     * @param host address to bind
     * @param port port to bind, 0 for ephemeral
     * @return the defaults for everything else
     */
    public static HttpLimits defaults(String host, int port) {
        return new HttpLimits(host, port, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REQUEST_LINE_BYTES,
                DEFAULT_MAX_HEADER_BYTES, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_CONCURRENT_REQUESTS);
    }

    /**
     * @param timeout new request timeout
     * @return a copy with it
     */
    public HttpLimits withRequestTimeout(Duration timeout) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, timeout, maxConnections,
                maxConcurrentRequests);
    }

    /**
     * @param connections new connection limit
     * @return a copy with it
     */
    public HttpLimits withMaxConnections(int connections) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, requestTimeout,
                connections, maxConcurrentRequests);
    }

    /**
     * @param requests new concurrent request limit
     * @return a copy with it
     */
    public HttpLimits withMaxConcurrentRequests(int requests) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, requestTimeout,
                maxConnections, requests);
    }

    private static void checkSize(String name, int value) {
        if (value < 256 || value > 1024 * 1024) {
            throw new IllegalArgumentException("http: " + name + " must be 256 bytes to 1 MiB");
        }
    }

    private static void checkDuration(String name, Duration value) {
        if (value.isNegative() || value.isZero() || value.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("http: " + name + " must be positive and at most 10 minutes");
        }
    }

    /**
     * Mutations in progress at once: one in {@link #READ_SHARE} of {@link #maxConcurrentRequests} (at least one,
     * given two or more) stays free for reads, health among them. A stop or restart may run for its timeout (up to
     * 300 s) and more while it waits for one of the engine client's long calls; without a share of its own, as
     * many such stops as there are requests answered every other request {@code busy}, health included, until they
     * ended (a helper's review).
     *
     * @return the mutations allowed at once, at least one
     */
    public int maxConcurrentMutations() {
        return Math.max(1, maxConcurrentRequests - Math.max(1, maxConcurrentRequests / READ_SHARE));
    }
}
