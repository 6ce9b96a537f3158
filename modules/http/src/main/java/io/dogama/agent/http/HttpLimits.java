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
 * @param readTimeout           longest wait for the next bytes from a client while reading a request line,
 *                              headers or body; a stalled client is disconnected after it; default
 *                              {@link #DEFAULT_READ_TIMEOUT}
 * @param idleTimeout           how long a kept-alive connection may wait for its next request; default
 *                              {@link #DEFAULT_IDLE_TIMEOUT}
 * @param maxConnections        open TCP connections at most; default {@value #DEFAULT_MAX_CONNECTIONS}
 * @param maxConcurrentRequests requests processed at once at most, further ones get 503 {@code busy}; default
 *                              {@value #DEFAULT_MAX_CONCURRENT_REQUESTS}
 */
public record HttpLimits(String host, int port, int maxBodyBytes, int maxRequestLineBytes, int maxHeaderBytes,
        Duration readTimeout, Duration idleTimeout, int maxConnections, int maxConcurrentRequests) {

    /** 64 KiB, SPEC section 3. */
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /** 2 KiB: the longest route with a 63-character instance ID is well under 100 bytes. */
    public static final int DEFAULT_MAX_REQUEST_LINE_BYTES = 2048;
    /** 8 KiB of headers: the three authentication headers need about 200 bytes. */
    public static final int DEFAULT_MAX_HEADER_BYTES = 8 * 1024;
    /** 5 s between two reads from a client. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);
    /** 30 s of keep-alive idleness. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** 64 connections: the only client is the control plane. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    /** 32 requests in progress at once. */
    public static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 32;

    /**
     * Validates every value.
     *
     * @throws IllegalArgumentException if a value is out of range: port outside 0..65535, a body limit outside
     *                                  1..{@value #DEFAULT_MAX_BODY_BYTES}, a line or header limit below 256 or
     *                                  above 1 MiB, a timeout not positive or above 10 minutes, a count below 1
     */
    public HttpLimits {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(readTimeout, "readTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
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
        checkDuration("readTimeout", readTimeout);
        checkDuration("idleTimeout", idleTimeout);
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
                DEFAULT_MAX_HEADER_BYTES, DEFAULT_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_CONCURRENT_REQUESTS);
    }

    /**
     * @param timeout new read timeout
     * @return a copy with it
     */
    public HttpLimits withReadTimeout(Duration timeout) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, timeout, idleTimeout,
                maxConnections, maxConcurrentRequests);
    }

    /**
     * @param timeout new idle timeout
     * @return a copy with it
     */
    public HttpLimits withIdleTimeout(Duration timeout) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, readTimeout, timeout,
                maxConnections, maxConcurrentRequests);
    }

    /**
     * @param connections new connection limit
     * @return a copy with it
     */
    public HttpLimits withMaxConnections(int connections) {
        return new HttpLimits(host, port, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, readTimeout, idleTimeout,
                connections, maxConcurrentRequests);
    }

    /**
     * @param newPort new port
     * @return a copy with it
     */
    public HttpLimits withPort(int newPort) {
        return new HttpLimits(host, newPort, maxBodyBytes, maxRequestLineBytes, maxHeaderBytes, readTimeout,
                idleTimeout, maxConnections, maxConcurrentRequests);
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
}
