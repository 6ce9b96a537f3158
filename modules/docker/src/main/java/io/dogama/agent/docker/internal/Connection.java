package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;

/**
 * One connection to the engine socket with its own read buffer. Every read is bounded by a
 * deadline and a silence timeout (SO_TIMEOUT); a line is bounded by a byte budget. Not
 * thread-safe: one exchange at a time, enforced by the pool.
 */
final class Connection implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Connection.class.getName());
    /** Read buffer size: one read usually takes a whole inspect answer. */
    static final int BUFFER_BYTES = 16 * 1024;

    static {
        // Before junixsocket's first class initializes: it loads its JNI library then.
        JniLibrary.prepare();
    }

    private final AFUNIXSocket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int pos;
    private int lim;
    private int soTimeout = -1;
    private int exchanges;
    private long receivedInExchange;
    private long idleSinceNanos;
    private byte[] line = new byte[256];

    private Connection(AFUNIXSocket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * @throws DockerTimeoutException     if the connect does not complete in time
     * @throws DockerUnavailableException if the socket does not accept the connection
     */
    static Connection open(Path path, Duration connectTimeout) throws DockerException {
        AFUNIXSocket s = null;
        try {
            s = AFUNIXSocket.newInstance();
            s.connect(AFUNIXSocketAddress.of(path), (int) Math.max(1, connectTimeout.toMillis()));
            Connection c = new Connection(s);
            LOG.log(Level.DEBUG, "docker: connection opened");
            return c;
        } catch (SocketTimeoutException e) {
            closeQuietly(s);
            throw new DockerTimeoutException("connecting to the engine socket timed out", e);
        } catch (IOException e) {
            closeQuietly(s);
            throw new DockerUnavailableException("cannot connect to the engine socket", e);
        } catch (LinkageError e) {
            // junixsocket's JNI library did not load (JniLibrary): no socket can be made, now or later.
            closeQuietly(s);
            throw DockerUnavailableException.lasting(
                    "cannot reach the engine socket: junixsocket's JNI library did not load", e);
        }
    }

    private static void closeQuietly(AFUNIXSocket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "docker: closing a failed socket failed", e);
            }
        }
    }

    /** @return true if this connection already served an exchange (it came from the idle pool) */
    boolean reused() {
        return exchanges > 0;
    }

    void startExchange() {
        exchanges++;
        receivedInExchange = 0;
    }

    /** @return bytes received since the current exchange started */
    long receivedInExchange() {
        return receivedInExchange;
    }

    void markIdle() {
        idleSinceNanos = System.nanoTime();
    }

    long idleNanos() {
        return System.nanoTime() - idleSinceNanos;
    }

    /**
     * Bytes received but not consumed, in this buffer or still in the socket (an engine that sent more
     * after its answer was read): an idle connection with any is not reusable, for they would be read as the
     * next call's answer. A socket whose count cannot be read counts as having some.
     */
    boolean hasUnreadBytes() {
        if (pos < lim) {
            return true;
        }
        try {
            return in.available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Writes the whole request in one call, bounded as a read is: the socket's timeout (which junixsocket
     * applies to sends too) is set from this call's deadline, not left at what the previous exchange on this
     * connection set (up to a long stop's 330 s), so an engine that stops reading cannot hold a short call.
     *
     * @throws DockerTimeoutException if the deadline has passed
     */
    void write(byte[] request, Deadline deadline, Duration silence) throws IOException, DockerTimeoutException {
        int timeout = deadline.readTimeoutMillis(silence);
        if (timeout != soTimeout) {
            socket.setSoTimeout(timeout);
            soTimeout = timeout;
        }
        out.write(request);
        out.flush();
    }

    /**
     * Makes sure an unread byte is buffered.
     *
     * @return false on end of stream
     */
    private boolean fill(Deadline deadline, Duration silence) throws DockerException {
        if (pos < lim) {
            return true;
        }
        pos = 0;
        lim = 0;
        int n = readRaw(buf, 0, buf.length, deadline, silence);
        if (n < 0) {
            return false;
        }
        lim = n;
        return true;
    }

    private int readRaw(byte[] dst, int off, int len, Deadline deadline, Duration silence) throws DockerException {
        int timeout = deadline.readTimeoutMillis(silence);
        try {
            if (timeout != soTimeout) {
                socket.setSoTimeout(timeout);
                soTimeout = timeout;
            }
            int n;
            do {
                n = in.read(dst, off, len);
            } while (n == 0);
            if (n > 0) {
                receivedInExchange += n;
            }
            return n;
        } catch (SocketTimeoutException e) {
            throw new DockerTimeoutException("the engine went silent longer than the read timeout", e);
        } catch (IOException e) {
            throw new DockerUnavailableException("the connection to the engine broke", e);
        }
    }

    /**
     * Reads one CRLF-terminated line of at most {@code max} bytes, CRLF included.
     *
     * @return the line without CRLF (ISO-8859-1), or null if the stream ended before its first byte
     * @throws DockerProtocolException if the line is too long, not ended by CRLF, or cut short
     */
    String readLine(int max, Deadline deadline, Duration silence) throws DockerException {
        int len = 0;
        while (true) {
            if (!fill(deadline, silence)) {
                if (len == 0) {
                    return null;
                }
                throw new DockerProtocolException("the engine closed the connection inside a line");
            }
            int i = pos;
            while (i < lim && buf[i] != '\n') {
                i++;
            }
            int chunk = i - pos;
            boolean found = i < lim;
            if (len + chunk + (found ? 1 : 0) > max) {
                throw new DockerProtocolException("a header or chunk line exceeds its limit");
            }
            if (len + chunk > line.length) {
                line = java.util.Arrays.copyOf(line, Math.max(line.length * 2, len + chunk));
            }
            System.arraycopy(buf, pos, line, len, chunk);
            len += chunk;
            pos = found ? i + 1 : lim;
            if (found) {
                break;
            }
        }
        if (len == 0 || line[len - 1] != '\r') {
            throw new DockerProtocolException("a line is not ended by CRLF");
        }
        return new String(line, 0, len - 1, StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads up to {@code len} bytes.
     *
     * @return bytes read, or -1 at end of stream
     */
    int read(byte[] dst, int off, int len, Deadline deadline, Duration silence) throws DockerException {
        if (len == 0) {
            return 0;
        }
        if (pos == lim && len >= buf.length) {
            return readRaw(dst, off, len, deadline, silence);
        }
        if (!fill(deadline, silence)) {
            return -1;
        }
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, dst, off, n);
        pos += n;
        return n;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "docker: closing a connection failed", e);
        }
    }
}
