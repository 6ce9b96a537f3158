package io.dogama.agent.deploy;

import com.fasterxml.jackson.jr.ob.JSON;
import io.dogama.agent.client.DogamaClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/**
 * Calls to an agent at {@code http://IP:PORT}: the container's address on its internal control network,
 * which the Docker host reaches directly (no published port, as in production). Signed calls go through
 * the control plane's client (modules/client); its signing is checked against the shared vectors and
 * scripts/dogama-curl in modules/client and modules/e2e-tests.
 */
final class Agents {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Agents() {
    }

    /** @return a client of the agent at the address, signing with the secret-file line */
    static DogamaClient client(String ip, int port, String secretLine) {
        return DogamaClient.builder().uri(URI.create("http://" + ip + ":" + port)).secret(secretLine)
                .requestTimeout(TIMEOUT).build();
    }

    /** A fresh secret-file line: base64url of 32 random bytes. */
    static String randomSecretLine() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The answer to a request without any authentication header. */
    record Unsigned(int status, String body) {
        Map<String, Object> json() {
            try {
                return JSON.std.mapFrom(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }
    }

    static Unsigned unsigned(String ip, int port, String path) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + ip + ":" + port + path))
                    .timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
            return new Unsigned(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
