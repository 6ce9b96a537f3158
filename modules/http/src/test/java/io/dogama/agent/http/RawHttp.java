package io.dogama.agent.http;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A minimal HTTP/1.1 client over a plain socket, so that tests can send exactly the bytes they mean:
 * duplicated headers, raw paths, chunked bodies, stalls.
 */
final class RawHttp {
    /** Bound on every read in a test, so that a server bug fails the test instead of hanging it. */
    static final int SOCKET_TIMEOUT_MILLIS = 10_000;

    /** A parsed response. */
    record Response(int status, Map<String, List<String>> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.getFirst();
        }

        Map<String, Object> json() throws IOException {
            return JSON.std.mapFrom(body);
        }

        String code() throws IOException {
            return (String) json().get("code");
        }
    }

    private RawHttp() {
    }

    static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), SOCKET_TIMEOUT_MILLIS);
        socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
        return socket;
    }

    /** Sends raw bytes on a new connection and reads one response. */
    static Response exchange(int port, byte[] request) throws IOException {
        try (Socket socket = connect(port)) {
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            return read(socket.getInputStream());
        }
    }

    static Response exchange(int port, String request) throws IOException {
        return exchange(port, request.getBytes(StandardCharsets.UTF_8));
    }

    /** Builds a request with a Host header, Content-Length when there is a body, and the given headers. */
    static String request(String method, String target, List<String> headers, String body) {
        StringBuilder b = new StringBuilder();
        b.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        b.append("Host: 127.0.0.1\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0) {
            b.append("Content-Length: ").append(bytes.length).append("\r\n");
        }
        b.append("Connection: close\r\n\r\n").append(body);
        return b.toString();
    }

    static Response read(InputStream in) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, List<String>> headers = new TreeMap<>();
        String line;
        while ((line = line(in)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        byte[] body;
        List<String> length = headers.get("content-length");
        if (length != null) {
            body = in.readNBytes(Integer.parseInt(length.getFirst()));
        } else if (status == 204 || status == 304) {
            body = new byte[0];
        } else {
            body = in.readAllBytes();
        }
        return new Response(status, headers, body);
    }

    /** Reads until the server closes the connection; fails the test if that takes longer than the socket timeout. */
    static long millisUntilClosed(Socket s) throws IOException {
        long start = System.nanoTime();
        InputStream in = s.getInputStream();
        try {
            while (in.read() != -1) {
                // discard whatever the server says before closing
            }
        } catch (java.net.SocketException reset) {
            // a reset is a close too
        }
        return java.time.Duration.ofNanos(System.nanoTime() - start).toMillis();
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
