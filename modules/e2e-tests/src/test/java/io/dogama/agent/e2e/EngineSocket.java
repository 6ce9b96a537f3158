package io.dogama.agent.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The engine's API over its Unix socket, with no library in between: one persistent HTTP/1.1
 * connection ({@link SocketChannel} on a {@link UnixDomainSocketAddress}), hand-written requests.
 * For the load run's direct calls, so that "through the agent" is compared with the bare engine
 * and not with a CLI's process start. Not thread-safe: one per caller.
 */
final class EngineSocket implements AutoCloseable {
    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(1 << 16);

    /** A response: status and body. */
    record Reply(int status, String body) {
    }

    EngineSocket(String socketPath) throws IOException {
        channel = SocketChannel.open(UnixDomainSocketAddress.of(socketPath));
        in.flip();
    }

    Reply call(String method, String path, String jsonBody) throws IOException {
        byte[] body = jsonBody == null ? new byte[0] : jsonBody.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder();
        head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: docker\r\n");
        if (jsonBody != null) {
            head.append("Content-Type: application/json\r\n");
        }
        head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer out = ByteBuffer.allocate(h.length + body.length).put(h).put(body).flip();
        while (out.hasRemaining()) {
            channel.write(out);
        }
        return read();
    }

    private Reply read() throws IOException {
        String statusLine = line();
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        int length = -1;
        boolean chunked = false;
        for (String l = line(); !l.isEmpty(); l = line()) {
            String lower = l.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(l.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int n = Integer.parseInt(line().split(";")[0].trim(), 16); n > 0;
                 n = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                body.write(bytes(n));
                line();
            }
            line();
        } else if (length > 0) {
            body.write(bytes(length));
        }
        return new Reply(status, body.toString(StandardCharsets.UTF_8));
    }

    private boolean fill() throws IOException {
        in.compact();
        int n = channel.read(in);
        in.flip();
        return n > 0;
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder();
        while (true) {
            if (!in.hasRemaining() && !fill()) {
                throw new IOException("e2e: the engine closed the connection");
            }
            char c = (char) in.get();
            if (c == '\n') {
                return b.toString();
            }
            if (c != '\r') {
                b.append(c);
            }
        }
    }

    private byte[] bytes(int n) throws IOException {
        byte[] out = new byte[n];
        int off = 0;
        while (off < n) {
            if (!in.hasRemaining() && !fill()) {
                throw new IOException("e2e: the engine closed the connection");
            }
            int k = Math.min(in.remaining(), n - off);
            in.get(out, off, k);
            off += k;
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
