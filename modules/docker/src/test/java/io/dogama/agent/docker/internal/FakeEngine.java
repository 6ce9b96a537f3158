package io.dogama.agent.docker.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.newsclub.net.unix.AFUNIXServerSocket;
import org.newsclub.net.unix.AFUNIXSocket;

/**
 * A scripted engine on a Unix socket in the test: it answers {@code /version}, {@code /info} and {@code /_ping}
 * correctly and hands every other request to the test's handler, which may answer badly on
 * purpose. It counts connections and notices when the client closes one.
 */
final class FakeEngine implements AutoCloseable {
    /** Text that must never reach an exception message. */
    static final String MARKER = "EVIL-MARKER";
    static final String VERSION_141 = "{\"Version\":\"20.10.24\",\"ApiVersion\":\"1.41\",\"MinAPIVersion\":\"1.12\"}";

    /** What the fake does with the connection after the handler. */
    enum After {
        /** Read the next request. */
        KEEP,
        /** Close the connection. */
        CLOSE
    }

    /** One request as the fake received it. */
    record Received(int connection, String method, String target, String body) {
    }

    /** Answers one request. */
    @FunctionalInterface
    interface Handler {
        After handle(Received req, OutputStream out, InputStream in) throws IOException;
    }

    /** The connection the calling fake thread serves, for {@link #paceUntilClientCloses}. */
    private static final ThreadLocal<AFUNIXSocket> SERVING = new ThreadLocal<>();

    private final AFUNIXServerSocket server;
    private final Handler handler;
    private volatile String versionJson = VERSION_141;
    // Open connections only, and a queue of what was received: a fuzz run makes hundreds of thousands of
    // connections, and copy-on-write lists grown by one element per connection made each one cost more than the last.
    private final Set<AFUNIXSocket> sockets = ConcurrentHashMap.newKeySet();
    /** A request whose target holds this is never read past its head (see {@link #readRequest}). */
    static final String STALL_WRITE = "stall-write";
    private final java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);
    final Queue<Received> received = new ConcurrentLinkedQueue<>();
    final AtomicInteger accepted = new AtomicInteger();
    /** Connections on which the fake saw the client's end close. */
    final AtomicInteger closedByClient = new AtomicInteger();
    /** Connections that are over, whichever side closed them. */
    final AtomicInteger ended = new AtomicInteger();
    private final Thread acceptor;
    private volatile String pingBody = "OK";
    private volatile String infoJson = "{\"DockerRootDir\":\"/var/lib/docker\",\"NCPU\":2}";

    FakeEngine(Path socket, Handler handler) throws IOException {
        this.server = AFUNIXServerSocket.bindOn(socket, true);
        this.handler = handler;
        this.acceptor = Thread.ofPlatform().daemon().name("fake-engine-accept").start(this::acceptLoop);
    }

    void versionJson(String json) {
        versionJson = json;
    }

    /** What {@code /info} answers from now on. */
    void infoJson(String json) {
        infoJson = json;
    }

    /** What {@code /_ping} answers from now on (two bytes, as the engine's "OK"). */
    void pingBody(String twoBytes) {
        if (twoBytes.length() != 2) {
            throw new IllegalArgumentException("two bytes");
        }
        pingBody = twoBytes;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                AFUNIXSocket s = server.accept();
                sockets.add(s);
                int n = accepted.incrementAndGet();
                Thread.ofPlatform().daemon().name("fake-engine-" + n).start(() -> serve(s, n));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(AFUNIXSocket s, int connection) {
        SERVING.set(s);
        try (s) {
            // Buffered: the request head is read byte by byte, and each read of the socket's own stream is a system call.
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                Received r = readRequest(in, connection);
                if (r == null) {
                    closedByClient.incrementAndGet();
                    return;
                }
                received.add(r);
                After after;
                if (r.target().equals("/version") || r.target().endsWith("/version")) {
                    after = json(out, 200, versionJson);
                } else if (r.target().endsWith("/info")) {
                    after = json(out, 200, infoJson);
                } else if (r.target().endsWith("/_ping")) {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nApi-Version: 1.41\r\n\r\n" + pingBody)
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    after = After.KEEP;
                } else {
                    after = handler.handle(r, out, in);
                }
                if (after == After.CLOSE) {
                    return;
                }
            }
        } catch (IOException e) {
            // A write to a connection the client closed: the client gave up, as it should.
            closedByClient.incrementAndGet();
        } finally {
            sockets.remove(s);
            ended.incrementAndGet();
        }
    }

    /** @return the request, or null once the client closed the connection */
    private Received readRequest(InputStream in, int connection) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            state = switch (state) {
                case 0, 2 -> b == '\r' ? state + 1 : 0;
                case 1, 3 -> b == '\n' ? state + 1 : (b == '\r' ? 1 : 0);
                default -> 0;
            };
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] first = lines[0].split(" ");
        int length = 0;
        for (String l : lines) {
            if (l.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(l.substring(15).strip());
            }
        }
        if (first[1].contains(STALL_WRITE)) {
            // Reads nothing more, ever: the client's write of a long body then blocks once the socket's buffer is full.
            try {
                closing.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
        byte[] body = in.readNBytes(length);
        return new Received(connection, first[0], first[1], new String(body, StandardCharsets.UTF_8));
    }

    static After json(OutputStream out, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " " + MARKER + "\r\nContent-Type: application/json\r\nX-Evil: " + MARKER
                + "\r\nContent-Length: " + b.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
        return After.KEEP;
    }

    static After empty(OutputStream out, int status) throws IOException {
        out.write(("HTTP/1.1 " + status + " " + MARKER + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return After.KEEP;
    }

    /** Blocks until the client closes its end; the bytes it sends are dropped. */
    static After awaitClientClose(InputStream in) throws IOException {
        byte[] b = new byte[1024];
        while (in.read(b) >= 0) {
            // keep draining
        }
        throw new IOException("client closed");
    }

    /**
     * A slow engine's pacing that is over as soon as the client gives up: waits up to {@code bound}
     * for the client to close the connection being served.
     *
     * @throws IOException once the client closed it (the handler's end)
     */
    static void paceUntilClientCloses(InputStream in, Duration bound) throws IOException {
        AFUNIXSocket s = SERVING.get();
        s.setSoTimeout((int) bound.toMillis());
        try {
            if (in.read() < 0) {
                throw new IOException("client closed");
            }
        } catch (SocketTimeoutException e) {
            // the bound passed and the client is still there: the handler goes on
        } finally {
            s.setSoTimeout(0);
        }
    }

    List<Received> receivedOn(String targetPart) {
        List<Received> out = new ArrayList<>();
        for (Received r : received) {
            if (r.target().contains(targetPart)) {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        closing.countDown();
        server.close();
        for (AFUNIXSocket s : sockets) {
            s.close();
        }
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
