package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.time.Duration;
import java.util.Arrays;

/**
 * Reads one response body as its head frames it, decoding the chunked coding strictly. It only
 * frames: how much a caller may read is the caller's limit ({@link #readAll(int)}).
 */
final class BodyReader {
    /** Longest chunk-size line: 15 hex digits plus room for an extension. */
    static final int MAX_CHUNK_LINE_BYTES = 1024;
    /** Most hex digits of a chunk size: 15 always fit a long. */
    static final int MAX_CHUNK_SIZE_DIGITS = 15;
    /** First buffer of {@link #readAll(int)}: most engine answers fit; larger ones grow it by doubling. */
    static final int INITIAL_BUFFER_BYTES = 8192;

    private final Connection conn;
    private final ResponseHead head;
    private final Deadline deadline;
    private final Duration silence;
    private final int maxTrailerBytes;
    /** Bytes left in the body (LENGTH) or in the current chunk (CHUNKED). */
    private long remaining;
    private boolean chunkOpen;
    private boolean done;

    BodyReader(Connection conn, ResponseHead head, Deadline deadline, Duration silence, int maxTrailerBytes) {
        this.conn = conn;
        this.head = head;
        this.deadline = deadline;
        this.silence = silence;
        this.maxTrailerBytes = maxTrailerBytes;
        this.remaining = head.framing() == ResponseHead.Framing.LENGTH ? head.contentLength() : 0;
        this.done = head.framing() == ResponseHead.Framing.NONE
                || (head.framing() == ResponseHead.Framing.LENGTH && remaining == 0);
    }

    /** @return true once the whole body was read and its framing checked */
    boolean done() {
        return done;
    }

    /** @return the declared length, or -1 if unknown before reading */
    long declaredLength() {
        return head.framing() == ResponseHead.Framing.LENGTH ? head.contentLength() : -1;
    }

    /**
     * @return bytes read, or -1 at the end of the body
     * @throws DockerProtocolException if the framing is broken or the body is cut short
     */
    int read(byte[] dst, int off, int len) throws DockerException {
        if (done) {
            return -1;
        }
        return switch (head.framing()) {
            case NONE -> -1;
            case LENGTH -> readLength(dst, off, len);
            case CHUNKED -> readChunked(dst, off, len);
            case UNTIL_CLOSE -> readUntilClose(dst, off, len);
        };
    }

    private int readLength(byte[] dst, int off, int len) throws DockerException {
        int n = conn.read(dst, off, (int) Math.min(len, remaining), deadline, silence);
        if (n < 0) {
            throw new DockerProtocolException("the engine closed the connection inside a body");
        }
        remaining -= n;
        if (remaining == 0) {
            done = true;
        }
        return n;
    }

    private int readUntilClose(byte[] dst, int off, int len) throws DockerException {
        int n = conn.read(dst, off, len, deadline, silence);
        if (n < 0) {
            done = true;
        }
        return n;
    }

    private int readChunked(byte[] dst, int off, int len) throws DockerException {
        if (!chunkOpen) {
            remaining = readChunkSize();
            if (remaining == 0) {
                readTrailers();
                done = true;
                return -1;
            }
            chunkOpen = true;
        }
        int n = conn.read(dst, off, (int) Math.min(len, remaining), deadline, silence);
        if (n < 0) {
            throw new DockerProtocolException("the engine closed the connection inside a chunk");
        }
        remaining -= n;
        if (remaining == 0) {
            String end = conn.readLine(2, deadline, silence);
            if (end == null || !end.isEmpty()) {
                throw new DockerProtocolException("a chunk is not followed by CRLF");
            }
            chunkOpen = false;
        }
        return n;
    }

    private long readChunkSize() throws DockerException {
        String l = conn.readLine(MAX_CHUNK_LINE_BYTES, deadline, silence);
        if (l == null) {
            throw new DockerProtocolException("the engine closed the connection before a chunk");
        }
        int end = l.indexOf(';');
        String hex = end < 0 ? l : l.substring(0, end);
        if (hex.isEmpty() || hex.length() > MAX_CHUNK_SIZE_DIGITS) {
            throw new DockerProtocolException("malformed chunk size");
        }
        long size = 0;
        for (int i = 0; i < hex.length(); i++) {
            int d = Character.digit(hex.charAt(i), 16);
            if (d < 0) {
                throw new DockerProtocolException("malformed chunk size");
            }
            size = size * 16 + d;
        }
        return size;
    }

    private void readTrailers() throws DockerException {
        int budget = maxTrailerBytes;
        while (true) {
            if (budget <= 0) {
                throw new DockerProtocolException("the chunk trailers exceed their limit");
            }
            String t = conn.readLine(budget, deadline, silence);
            if (t == null) {
                throw new DockerProtocolException("the engine closed the connection inside the trailers");
            }
            if (t.isEmpty()) {
                return;
            }
            budget -= t.length() + 2;
        }
    }

    /**
     * Reads the whole body.
     *
     * @param max most bytes accepted
     * @return the body
     * @throws DockerProtocolException if it is larger than {@code max} (decided from Content-Length
     *                                 before reading, or as soon as the bytes arrive) or broken
     */
    byte[] readAll(int max) throws DockerException {
        long declared = declaredLength();
        if (declared > max) {
            throw new DockerProtocolException("the response body exceeds its limit");
        }
        // Grown as bytes arrive, never sized by the declared length alone: an engine that declares the limit
        // and sends nothing would otherwise hold the limit's worth of heap per connection until it times out.
        int cap = declared >= 0 ? (int) declared : max;
        byte[] out = new byte[Math.min(cap, INITIAL_BUFFER_BYTES)];
        int len = 0;
        while (true) {
            if (len == out.length) {
                if (declared >= 0 && len == declared) {
                    // A length-framed body is complete once its declared bytes are in.
                    if (!done) {
                        throw new DockerProtocolException("the response body does not match its length");
                    }
                    return out;
                }
                if (len >= max) {
                    byte[] probe = new byte[1];
                    if (read(probe, 0, 1) < 0) {
                        return out;
                    }
                    throw new DockerProtocolException("the response body exceeds its limit");
                }
                out = Arrays.copyOf(out, (int) Math.min(cap, (long) out.length * 2));
            }
            int n = read(out, len, out.length - len);
            if (n < 0) {
                return len == out.length ? out : Arrays.copyOf(out, len);
            }
            len += n;
        }
    }

    /** Reads and drops what is left of the body, at most {@code max} bytes. */
    void discard(int max) throws DockerException {
        byte[] scratch = new byte[4096];
        long total = 0;
        while (true) {
            int n = read(scratch, 0, scratch.length);
            if (n < 0) {
                return;
            }
            total += n;
            if (total > max) {
                throw new DockerProtocolException("the response body exceeds its limit");
            }
        }
    }
}
