package io.dogama.agent.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scripted HTTP/1.1 server on the loopback: records each request and answers with the next scripted
 * answer (one request per connection, then closed), or closes the connection without answering.
 */
final class FakeAgent implements AutoCloseable {
    record Received(String method, String path, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    record Answer(int status, String contentType, String body, Raw raw) {
        static final Answer DROP = new Answer(-1, "", "", null);

        Answer(int status, String contentType, String body) {
            this(status, contentType, body, null);
        }
    }

    /** Writes a whole answer, head included, as the test wants it (too long, too slow). */
    @FunctionalInterface
    interface Raw {
        void write(OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private final Deque<Answer> script = new ArrayDeque<>();
    private final List<Received> received = new ArrayList<>();
    private final Thread acceptor;

    FakeAgent() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofVirtual().start(this::serve);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    synchronized FakeAgent answer(int status, String contentType, String body) {
        script.add(new Answer(status, contentType, body));
        return this;
    }

    FakeAgent json(int status, String body) {
        return answer(status, "application/json", body);
    }

    FakeAgent problem(int status, String code) {
        return answer(status, "application/problem+json", "{\"type\":\"urn:dogama:problem:" + code
                + "\",\"title\":\"t\",\"status\":" + status + ",\"code\":\"" + code + "\"}");
    }

    synchronized FakeAgent raw(Raw raw) {
        script.add(new Answer(0, "", "", raw));
        return this;
    }

    synchronized FakeAgent drop() {
        script.add(Answer.DROP);
        return this;
    }

    synchronized List<Received> received() {
        return List.copyOf(received);
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(5000);
                Received r = read(s.getInputStream());
                Answer a;
                synchronized (this) {
                    received.add(r);
                    a = script.isEmpty() ? new Answer(500, "text/plain", "no scripted answer") : script.poll();
                }
                if (a == Answer.DROP) {
                    continue;
                }
                if (a.raw() != null) {
                    a.raw().write(s.getOutputStream());
                    continue;
                }
                byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
                StringBuilder head = new StringBuilder("HTTP/1.1 " + a.status() + " X\r\n");
                if (a.status() != 204) {
                    head.append("Content-Type: ").append(a.contentType()).append("\r\n");
                    head.append("Content-Length: ").append(body.length).append("\r\n");
                }
                head.append("Connection: close\r\n\r\n");
                OutputStream out = s.getOutputStream();
                out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                if (a.status() != 204) {
                    out.write(body);
                }
                out.flush();
            } catch (IOException e) {
                // closed or a broken client: the test sees it
            }
        }
    }

    private static Received read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed inside the head");
            }
            head.write(b);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).strip().split("\r\n");
        String[] start = lines[0].split(" ");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            String name = lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT);
            if (headers.put(name, lines[i].substring(c + 1).trim()) != null) {
                throw new IOException("duplicate header " + name);
            }
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
        return new Received(start[0], start[1], headers, body);
    }

    @Override
    public void close() throws IOException {
        server.close();
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
