package io.dogama.agent.app.internal;

import io.dogama.agent.auth.AuthException;
import io.dogama.agent.auth.RequestSigner;
import io.dogama.agent.auth.SecretFile;
import io.dogama.agent.policy.AdminConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * {@code dogama-agent health}: a signed {@code GET /v1/health} to the local agent, for the image's
 * HEALTHCHECK and for operators (every route needs authentication, so plain curl cannot do it).
 * Exit 0 on 200, 1 otherwise. Prints only the status, never the secret.
 */
final class HealthCommand {
    /** Whole-call bound: a health probe that hangs is a failed probe. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** The agent listens on a wildcard in a container; the probe runs in the same network namespace. */
    static String localHost(String listenHost) {
        return switch (listenHost) {
            case "0.0.0.0" -> "127.0.0.1";
            case "::" -> "[::1]";
            default -> listenHost.contains(":") ? "[" + listenHost + "]" : listenHost;
        };
    }

    static int get(RequestSigner signer, String host, int port, String path) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                .timeout(TIMEOUT).GET();
        signer.headers("GET", path, new byte[0]).forEach(request::header);
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }
}
