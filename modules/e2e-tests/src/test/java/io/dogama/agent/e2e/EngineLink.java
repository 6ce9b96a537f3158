package io.dogama.agent.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's way to the real engine, which a test can cut and restore: a Unix socket that relays
 * every connection, byte for byte, to the engine's socket. {@link #down()} is what the agent sees
 * when dockerd stops (the socket file is gone, live connections are closed); {@link #up()} is
 * dockerd back. {@link #hold} makes the engine answer slowly: the answer to a request whose line
 * names a path is kept from the agent until the test releases it. The shared engine itself is never
 * stopped, so other tests keep it.
 */
final class EngineLink implements AutoCloseable {
    /** The longest a held answer waits for its release; every test releases its hold long before. */
    private static final long HOLD_LIMIT_SECONDS = 60;

    private final Path path;
    private final Path engine;
    private final Set<SocketChannel> live = ConcurrentHashMap.newKeySet();
    private volatile ServerSocketChannel server;
    private volatile Hold hold;

    /** Answers held back from the agent: to requests naming {@code fragment} in their request line. */
    static final class Hold {
        private final String fragment;
        private final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);

        private Hold(String fragment) {
            this.fragment = fragment;
        }

        /**
         * @param timeout how long to wait
         * @return true once a matching request went to the engine and its answer is being held
         */
        boolean awaitHeld(java.time.Duration timeout) throws InterruptedException {
            return held.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        /** Lets the held answer (and every later one) through. */
        void release() {
            released.countDown();
        }
    }

    /**
     * @param fragment a part of a request line, e.g. {@code "/containers/<id>/stop"}
     * @return the hold; release it before the agent's Docker deadline
     */
    Hold hold(String fragment) {
        Hold h = new Hold(fragment);
        hold = h;
        return h;
    }

    /**
     * From now on, every answer to a request naming {@code fragment} in its line reaches the agent with {@code count}
     * labels more in its first {@code "Labels"} object: an inspect as large as an image's author can make the
     * engine's (the engine takes hundreds of thousands of labels on an image, and copies them into every container
     * made from it).
     *
     * @param fragment a part of a request line, e.g. {@code "/containers/<id>/json"}
     * @param count    labels to add, each about 20 bytes
     */
    void padLabels(String fragment, int count) {
        StringBuilder b = new StringBuilder("\"Labels\":{");
        for (int i = 0; i < count; i++) {
            b.append("\"pad.").append(i).append("\":\"x").append(i % 10).append("\",");
        }
        pad = new Pad(fragment, b.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    /** Ends {@link #padLabels}: later answers pass as the engine sent them. */
    void noPadding() {
        pad = null;
    }

    private record Pad(String fragment, byte[] labels) {
    }

    private volatile Pad pad;

    EngineLink(Path path, Path engine) {
        this.path = path;
        this.engine = engine;
        up();
    }

    Path path() {
        return path;
    }

    synchronized void up() {
        if (server != null) {
            return;
        }
        try {
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(path));
            server = s;
            Thread.ofPlatform().daemon().name("engine-link-accept").start(() -> accept(s));
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot open the engine link", e);
        }
    }

    synchronized void down() {
        ServerSocketChannel s = server;
        server = null;
        if (s == null) {
            return;
        }
        try {
            s.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: cannot close the engine link", e);
        }
        for (SocketChannel c : live) {
            closeQuietly(c);
        }
        live.clear();
    }

    private void accept(ServerSocketChannel s) {
        while (s.isOpen()) {
            SocketChannel agent;
            try {
                agent = s.accept();
            } catch (IOException closed) {
                return;
            }
            SocketChannel docker;
            try {
                docker = SocketChannel.open(UnixDomainSocketAddress.of(engine));
            } catch (IOException e) {
                closeQuietly(agent);
                continue;
            }
            live.add(agent);
            live.add(docker);
            java.util.concurrent.atomic.AtomicReference<Hold> pending = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicReference<Pad> padding = new java.util.concurrent.atomic.AtomicReference<>();
            Thread.ofVirtual().start(() -> pump(agent, docker, pending, padding, true));
            Thread.ofVirtual().start(() -> pump(docker, agent, pending, padding, false));
        }
    }

    /**
     * Copies one direction. Requests (agent to engine) are looked at for the hold's fragment; the
     * engine's next answer on that connection then waits for the release (the agent sends one
     * request at a time on a connection).
     */
    private void pump(SocketChannel from, SocketChannel to, java.util.concurrent.atomic.AtomicReference<Hold> pending,
            java.util.concurrent.atomic.AtomicReference<Pad> padding, boolean requests) {
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
        try {
            while (from.read(buf) >= 0) {
                buf.flip();
                Hold h = hold;
                Pad p = pad;
                String seen = requests ? new String(buf.array(), 0, buf.limit(),
                        java.nio.charset.StandardCharsets.ISO_8859_1) : "";
                if (requests && h != null && seen.contains(h.fragment)) {
                    pending.set(h);
                }
                if (requests && p != null && seen.contains(p.fragment())) {
                    padding.set(p);
                }
                Pad padThis = requests ? null : padding.get();
                if (padThis != null) {
                    // The whole answer first (the agent sends one request at a time on a connection), then padded.
                    answer.write(buf.array(), 0, buf.limit());
                    buf.clear();
                    byte[] padded = Padding.of(answer.toByteArray(), padThis.labels());
                    if (padded != null) {
                        padding.set(null);
                        answer.reset();
                        ByteBuffer out = ByteBuffer.wrap(padded);
                        while (out.hasRemaining()) {
                            to.write(out);
                        }
                    }
                    continue;
                }
                Hold waiting = requests ? null : pending.getAndSet(null);
                if (waiting != null) {
                    waiting.held.countDown();
                    // A hold the test forgot to release would otherwise hang the agent's Docker call, not fail
                    // the test: past the bound, the connection is cut as if the engine went away.
                    if (!waiting.released.await(HOLD_LIMIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                        closeQuietly(from);
                        closeQuietly(to);
                        return;
                    }
                }
                while (buf.hasRemaining()) {
                    to.write(buf);
                }
                buf.clear();
            }
            to.shutdownOutput();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(from);
            closeQuietly(to);
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        } finally {
            if (!from.isOpen() || !to.isOpen()) {
                live.remove(from);
                live.remove(to);
            }
        }
    }

    /** An HTTP answer with labels added to its first {@code "Labels"} object, once it has all arrived. */
    private static final class Padding {
        private Padding() {
        }

        /** @return the padded answer, framed by its length; null while {@code raw} is not a whole answer yet */
        static byte[] of(byte[] raw, byte[] labels) {
            String text = new String(raw, java.nio.charset.StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                return null;
            }
            String head = text.substring(0, end);
            String rest = text.substring(end + 4);
            String body;
            if (head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
                StringBuilder b = new StringBuilder();
                int at = 0;
                while (true) {
                    int line = rest.indexOf("\r\n", at);
                    if (line < 0) {
                        return null;
                    }
                    int size = Integer.parseInt(rest.substring(at, line).trim(), 16);
                    if (size == 0) {
                        if (rest.indexOf("\r\n", line + 2) < 0) {
                            return null;
                        }
                        break;
                    }
                    if (rest.length() < line + 2 + size + 2) {
                        return null;
                    }
                    b.append(rest, line + 2, line + 2 + size);
                    at = line + 2 + size + 2;
                }
                body = b.toString();
            } else {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *([0-9]+)").matcher(head);
                int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
                if (rest.length() < length) {
                    return null;
                }
                body = rest.substring(0, length);
            }
            String statusLine = head.substring(0, head.indexOf("\r\n"));
            String padded = body.replaceFirst("\"Labels\":\\{", java.util.regex.Matcher.quoteReplacement(
                    new String(labels, java.nio.charset.StandardCharsets.ISO_8859_1)));
            // The last added label's comma: the first "Labels" of an inspect made by the agent is never empty.
            return (statusLine + "\r\nContent-Type: application/json\r\nContent-Length: " + padded.length()
                    + "\r\n\r\n" + padded).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() {
        down();
    }
}
