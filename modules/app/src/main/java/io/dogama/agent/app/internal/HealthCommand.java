package io.dogama.agent.app.internal;

import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.RequestSigner;
import io.dogama.agent.auth.SecretFile;
import io.dogama.agent.policy.AdminConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * {@code dogama-agent health}: a signed {@code GET /v1/health} to the local agent, for the image's
 * HEALTHCHECK and for operators (every route needs authentication, so plain curl cannot do it).
 * Exit 0 on 200, 1 otherwise. Prints only the status, never the secret.
 *
 * <p>The request is written on a plain socket and only the status line is read: Docker runs this
 * probe every interval in a JVM of its own, and java.net.http's client (its selector thread, its
 * module in the image) is a lot of start-up for one GET whose answer the agent itself frames.
 */
final class HealthCommand {
    /** Whole-call bound: a health probe that hangs is a failed probe. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** "HTTP/1.1 200 OK" and then some; a longer status line is not the agent's. */
    private static final int MAX_STATUS_LINE = 128;

    private HealthCommand() {
    }

    static int run(Path configFile, PrintStream out) {
        try {
            AdminConfig config = AgentProcess.readConfig(configFile);
            RequestSigner signer = RequestSigner.create(SecretFile.load(config.secretFile()), Clock.systemUTC());
            int status = get(signer, localHost(config.listen().host()), config.listen().port(), "/v1/health");
            out.println("health: " + status);
            return status == 200 ? 0 : 1;
        } catch (StartupException | AuthException e) {
            out.println("health: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            out.println("health: agent unreachable (" + e.getClass().getSimpleName() + ")");
            return 1;
        }
    }

    /** The agent listens on a wildcard in a container; the probe runs in the same network namespace. */
    static String localHost(String listenHost) {
        return switch (listenHost) {
            case "0.0.0.0" -> "127.0.0.1";
            case "::" -> "::1";
            default -> listenHost;
        };
    }

    /**
     * @param host an IP literal or name, IPv6 without brackets
     * @return the status code of the signed GET
     * @throws IOException if there is no complete status line within {@link #TIMEOUT}
     */
    static int get(RequestSigner signer, String host, int port, String path) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) TIMEOUT.toMillis());
            StringBuilder request = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: ")
                    .append(host.contains(":") ? "[" + host + "]" : host).append(':').append(port)
                    .append("\r\nConnection: close\r\n");
            signer.headers("GET", path, new byte[0])
                    .forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
            socket.getOutputStream().write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            return status(socket, deadline);
        }
    }

    /** Reads "HTTP/1.x NNN ..." up to its line end, each read bounded by what is left of the deadline. */
    private static int status(Socket socket, long deadline) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder line = new StringBuilder();
        while (line.length() < MAX_STATUS_LINE) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("no status line in time");
            }
            socket.setSoTimeout((int) Math.max(1, Duration.ofNanos(left).toMillis()));
            int c = in.read();
            if (c == -1 || c == '\n') {
                break;
            }
            line.append((char) c);
        }
        String s = line.toString();
        if (!s.matches("HTTP/1\\.[01] [1-5][0-9][0-9]( .*)?\r?")) {
            throw new IOException("not an HTTP status line");
        }
        return Integer.parseInt(s.substring(9, 12));
    }
}
