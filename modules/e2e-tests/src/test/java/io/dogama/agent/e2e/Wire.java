package io.dogama.agent.e2e;

import io.dogama.agent.client.DogamaClient;
import io.dogama.agent.client.RawResponse;
import io.dogama.agent.client.RequestSigner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Requests exactly as written, for the tests that need more than the typed client offers: ordinary
 * signed calls go through {@link DogamaClient#exchange} (the client signs them); a {@link Signed}
 * request is signed once with {@link RequestSigner} and may be sent any number of times (a replay),
 * with other headers or on a raw socket where the exact bytes matter. Every answer is checked
 * against the schemas of docs/openapi.yaml ({@link ApiDocument}).
 */
final class Wire {
    /** Longest the tests wait for one response (a stop may take its timeoutSeconds). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http;
    private final String host;
    private final int port;
    private final DogamaClient client;
    private final RequestSigner signer;

    Wire(String host, int port, DogamaClient client, RequestSigner signer) {
        this.host = host;
        this.port = port;
        this.client = client;
        this.signer = signer;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    int port() {
        return port;
    }

    /** A response: status, media type and body text. */
    record Response(int status, String contentType, String body) {
        Map<String, Object> json() {
            return Json.parse(body);
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + Json.abbreviate(body);
        }
    }

    /** A request signed once; {@link #send()} may send it any number of times (a replay). */
    record Signed(Wire via, String method, String path, String body, Map<String, String> headers) {
        Response send() {
            return via.exchange(method, path, body, headers);
        }

        /** @return the whole request as bytes, for a raw socket */
        byte[] wire() {
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            StringBuilder s = new StringBuilder();
            s.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
            s.append("Host: ").append(via.host).append(':').append(via.port).append("\r\n");
            headers.forEach((k, v) -> s.append(k).append(": ").append(v).append("\r\n"));
            if (body != null) {
                s.append("Content-Type: application/json\r\n");
            }
            s.append("Content-Length: ").append(b.length).append("\r\n");
            s.append("Connection: close\r\n\r\n");
            byte[] head = s.toString().getBytes(StandardCharsets.ISO_8859_1);
            byte[] all = new byte[head.length + b.length];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(b, 0, all, head.length, b.length);
            return all;
        }
    }

    /** @return a fresh nonce, as the client makes them */
    String nonce() {
        return signer.nonce();
    }

    Signed sign(String method, String path, String body) {
        return signAt(method, path, body, Instant.now(), signer.nonce());
    }

    Signed signAt(String method, String path, String body, Instant when, String nonce) {
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        return new Signed(this, method, path, body, signer.sign(method, path, b, RequestSigner.timestamp(when), nonce).asMap());
    }

    Response get(String path) {
        return signed("GET", path, null);
    }

    Response delete(String path) {
        return signed("DELETE", path, null);
    }

    /** POST without a body. */
    Response post(String path) {
        return signed("POST", path, null);
    }

    Response post(String path, String json) {
        return signed("POST", path, json);
    }

    Response put(String path, String json) {
        return signed("PUT", path, json);
    }

    /** Signed by the typed client's own machinery, sent once. */
    private Response signed(String method, String path, String json) {
        RawResponse r = client.exchange(method, path, json);
        Response response = checked(method, path, new Response(r.status(), r.contentType(), r.text()));
        if (response.status() / 100 == 2) {
            ApiDocument.get().checkAccepted(method, path, json);
        }
        return response;
    }

    private static Response checked(String method, String path, Response r) {
        ApiDocument.get().check(method, path, r.status(), r.contentType(), r.body());
        return r;
    }

    /** @return the response to a request with exactly these extra headers (none added) */
    Response exchange(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                .timeout(REQUEST_TIMEOUT);
        headers.forEach(b::header);
        if (body != null) {
            b.header("Content-Type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return checked(method, path, new Response(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: " + method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("e2e: interrupted", e);
        }
    }

    /** Sends the bytes on a new connection and reads the response to its end. */
    Response raw(byte[] request) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
            s.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            Response r = parse(s.getInputStream());
            String[] line = new String(request, 0, Math.min(request.length, 2048), StandardCharsets.ISO_8859_1).split(" ", 3);
            return checked(line[0], line[1], r);
        } catch (IOException e) {
            throw new UncheckedIOException("e2e: raw request failed", e);
        }
    }

    /**
     * Reads one response by its framing (Content-Length or chunked), not to the end of the stream:
     * the server may keep the connection open after answering.
     */
    private static Response parse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("e2e: connection closed inside the response head: " + head);
            }
            head.write(b);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).strip().split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(in);
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else {
            body = in.readAllBytes();
        }
        return new Response(status, headers.getOrDefault("content-type", ""), new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            int n = Integer.parseInt(line(in).split(";")[0].trim(), 16);
            if (n == 0) {
                line(in);
                return out.toByteArray();
            }
            out.write(in.readNBytes(n));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
