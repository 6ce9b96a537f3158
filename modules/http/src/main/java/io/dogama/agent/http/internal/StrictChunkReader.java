package io.dogama.agent.http.internal;

import io.dogama.agent.http.HttpLimits;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.http.RequestException;
import io.helidon.http.Status;
import io.helidon.http.DirectHandler.EventType;
import java.util.function.Supplier;

/**
 * The byte reader under Helidon's HTTP/1 connection, strict where Helidon 4.5 is lenient about chunked
 * framing (RFC 9112 section 7.1). Helidon reads a chunk-size line with {@link #readLine()} and no bound,
 * accepts {@code +7} as a size, buffers a whole declared chunk before returning any of it, and skips the
 * two bytes after a chunk's data without looking at them. Helidon's HTTP/1 connection calls
 * {@code readLine()} only for chunked framing (a size line, then the line after the last chunk), reads a
 * chunk's data with {@code readBuffer(size)} and then calls {@code skip(2)}; this class therefore checks
 * exactly those calls (and keeps the data's own skip away from the check):
 * <ul>
 * <li>a size line is at most {@link #HttpLimits.MAX_CHUNK_LINE_BYTES}, hex digits only (no sign, prefix, extension or
 * whitespace): else 400;</li>
 * <li>a size that would take the body past the limit is 413 before a byte of that chunk is read;</li>
 * <li>the two bytes after a chunk's data must be CR LF: else 400;</li>
 * <li>the line after the last chunk must be empty (no trailers): else 400.</li>
 * </ul>
 * Every refusal is a {@link RequestException} that ends the connection; the gate turns it into problem JSON.
 * If a Helidon upgrade changes how it calls the reader, {@code LimitsOverHttpTest}'s framing attacks fail.
 */
final class StrictChunkReader extends DataReader {
    private final int maxBodyBytes;
    /** Bytes declared by the chunks of the current body so far. */
    private long declared;
    /** True between a non-empty chunk's size line and the CR LF after its data. */
    private boolean chunkDataPending;
    /** True after the size-0 line: the next line ends the body. */
    private boolean lastChunkSeen;

    // Helidon 4.4 deprecated the public constructor for DataReader.create(...), which cannot be subclassed.
    // A subclass is the only way to reach the chunked parser; when the constructor goes, this stops compiling.
    @SuppressWarnings("removal")
    StrictChunkReader(Supplier<byte[]> bytes, int maxBodyBytes) {
        super(bytes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public String readLine() {
        int end = findNewLine(HttpLimits.MAX_CHUNK_LINE_BYTES + 1);
        if (end > HttpLimits.MAX_CHUNK_LINE_BYTES) {
            throw refusal(Status.BAD_REQUEST_400, "chunk line too long");
        }
        String line = readAsciiString(end);
        super.skip(2); // the CR LF findNewLine found
        if (lastChunkSeen) {
            // The end of the body: Helidon refuses anything but an empty line, we say so first.
            lastChunkSeen = false;
            declared = 0;
            if (!line.isEmpty()) {
                throw refusal(Status.BAD_REQUEST_400, "trailers are not accepted");
            }
            return line;
        }
        long size = parseSize(line);
        declared += size;
        if (declared > maxBodyBytes) {
            throw refusal(Status.REQUEST_ENTITY_TOO_LARGE_413, "chunked body too large");
        }
        if (size == 0) {
            lastChunkSeen = true;
        } else {
            chunkDataPending = true;
        }
        return Long.toHexString(size);
    }

    /**
     * A chunk's (or a length-framed body's) data. Helidon's {@code readBuffer} skips the data through
     * {@link #skip}, so a chunk of exactly two bytes would be taken for the CR LF after it (and a chunk of
     * CR LF would let the real CR LF go unchecked): the data is consumed here, past the check. When it is not
     * already in one piece it is copied into one array as it arrives: Helidon's {@code getBuffer} keeps every
     * socket read of the chunk as a node of its own until the last byte comes, so a client sending a 64 KiB
     * chunk one byte at a time (before it has authenticated anything) held about 6 MB for the request timeout.
     */
    @Override
    public BufferData readBuffer(int length) {
        ensureAvailable();
        if (length <= available()) {
            BufferData data = getBuffer(length);
            super.skip(length);
            return data;
        }
        return BufferData.create(readBytes(length)); // each node dropped once copied
    }

    @Override
    public void skip(int length) {
        if (chunkDataPending && length == 2) {
            chunkDataPending = false;
            if (read() != '\r' || read() != '\n') {
                throw refusal(Status.BAD_REQUEST_400, "chunk data not followed by CRLF");
            }
            return;
        }
        super.skip(length);
    }

    /** @return the size, or throws: hex digits only, at least one, saturating far above any limit */
    private long parseSize(String line) {
        if (line.isEmpty()) {
            throw refusal(Status.BAD_REQUEST_400, "empty chunk size");
        }
        long size = 0;
        for (int i = 0; i < line.length(); i++) {
            int digit = hexDigit(line.charAt(i));
            if (digit < 0) {
                throw refusal(Status.BAD_REQUEST_400, "chunk size is not hex digits");
            }
            size = Math.min((size << 4) | digit, Integer.MAX_VALUE);
        }
        return size;
    }

    /** @return the value of an ASCII hex digit, or -1 (never a Unicode digit, as Character.digit would) */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static RequestException refusal(Status status, String message) {
        return RequestException.builder()
                .type(EventType.BAD_REQUEST)
                .status(status)
                .setKeepAlive(false)
                .message("http: " + message)
                .build();
    }
}
