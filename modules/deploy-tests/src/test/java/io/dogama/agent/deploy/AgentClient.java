package io.dogama.agent.deploy;

import com.fasterxml.jackson.jr.ob.JSON;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Signed HTTP calls to an agent at {@code http://IP:PORT}: the container's address on its internal
 * control network, which the Docker host reaches directly (no published port, as in production).
 */
final class AgentClient {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final Signer signer;

    AgentClient(String ip, int port, Signer signer) {
        this.base = "http://" + ip + ":" + port;
        this.signer = signer;
    }

    record Response(int status, String body) {
        Map<String, Object> json() {
            try {
                return JSON.std.mapFrom(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }
    }

    Response call(String method, String path) {
        return call(method, path, null);
    }

    Response call(String method, String path, String body) {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        signer.headers(method, path, bytes).forEach(b::header);
        return send(b.build());
    }

    /** A request without any authentication header. */
    Response unsigned(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT).GET().build());
    }

    private Response send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Only a connection refused or reset (the agent not listening yet) counts as "not yet". */
    boolean healthy() {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/health"))
                    .timeout(Duration.ofSeconds(2)).GET();
            signer.headers("GET", "/v1/health", new byte[0]).forEach(b::header);
            return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
