package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dogama.agent.auth.NonceStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** SPEC section 3 through real HTTP: every authentication rule, each with a case that passes. */
class AuthOverHttpTest {
    private static final String HEALTH = "/v1/health";

    @TempDir
    Path dir;

    private static void assertProblem(RawHttp.Response r, int status, String code) throws Exception {
        assertEquals(status, r.status(), r.text());
        assertEquals("application/problem+json", r.header("Content-Type"));
        Map<String, Object> json = r.json();
        assertEquals(Map.of("type", "urn:dogama:problem:" + code, "title", json.get("title"), "status", status,
                "code", code), json);
    }

    private static RawHttp.Response get(ServerFixture f, List<String> headers) throws Exception {
        return RawHttp.exchange(f.port, RawHttp.request("GET", HEALTH, headers, ""));
    }

    @Test
    void everyVectorIsAcceptedVerbatimOverHttp() throws Exception {
        for (Map<String, Object> v : Signing.VECTORS) {
            Instant at = Instant.parse((String) v.get("timestamp"));
            TestClock clock = new TestClock(at);
            try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(10, clock), Signing.SECRET_LINE,
                    ServerFixture.limits())) {
                String body = (String) v.get("body");
                List<String> headers = new ArrayList<>(List.of("Authorization: " + v.get("authorization"),
                        "X-DoGaMa-Timestamp: " + v.get("timestamp"), "X-DoGaMa-Nonce: " + v.get("nonce")));
                if (!body.isEmpty()) {
                    headers.add("Content-Type: application/json; charset=utf-8");
                }
                RawHttp.Response r = RawHttp.exchange(f.port,
                        RawHttp.request((String) v.get("method"), (String) v.get("path"), headers, body));
                // Past authentication the fake answers; what matters is that it was reached.
                assertFalse(r.status() == 401 || r.status() == 503, v.get("path") + " -> " + r.text());
                assertEquals(1, f.ops.calls.size(), "operation reached for " + v.get("path"));
            }
        }
    }

    @Test
    void signedHealthIs200() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            RawHttp.Response r = f.send("GET", HEALTH, "");
            assertEquals(200, r.status());
            assertEquals("application/json", r.header("Content-Type"));
            assertEquals(Map.of("status", "ok"), r.json());
            assertEquals(List.of("health"), f.ops.calls);
        }
    }

    @Test
    void dockerDownIs503DockerUnavailable() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            f.ops.dockerUp = false;
            assertProblem(f.send("GET", HEALTH, ""), 503, "docker_unavailable");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void missingHeaderIs401(int missing) throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = new ArrayList<>(f.signedHeaders("GET", HEALTH, ""));
            headers.remove(missing);
            assertProblem(get(f, headers), 401, "unauthenticated");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void duplicatedHeaderIs401(int duplicated) throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = new ArrayList<>(f.signedHeaders("GET", HEALTH, ""));
            headers.add(headers.get(duplicated));
            assertProblem(get(f, headers), 401, "unauthenticated");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void headerNamesAreCaseInsensitive() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = f.signedHeaders("GET", HEALTH, "").stream()
                    .map(h -> h.substring(0, h.indexOf(':')).toLowerCase(java.util.Locale.ROOT) + h.substring(h.indexOf(':')))
                    .toList();
            assertEquals(200, get(f, headers).status());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer ", "dogama-hmac-sha256 ", "DoGaMa-HMAC-SHA256  ", "DoGaMa-HMAC-SHA1 ", ""})
    void wrongSchemeIs401(String scheme) throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = new ArrayList<>(f.signedHeaders("GET", HEALTH, ""));
            String signature = headers.getFirst().substring("Authorization: DoGaMa-HMAC-SHA256 ".length());
            headers.set(0, "Authorization: " + scheme + signature);
            assertProblem(get(f, headers), 401, "unauthenticated");
        }
    }

    @Test
    void wrongSecretIs401() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = ServerFixture.signedHeaders(Signing.OTHER_LINE, "GET", HEALTH, "",
                    f.clock.instant().toString(), Signing.nonce());
            assertProblem(get(f, headers), 401, "unauthenticated");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void previousSecretIsAcceptedAndCurrentToo() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(10, clock),
                Signing.OTHER_LINE + "\n" + Signing.SECRET_LINE + "\n", ServerFixture.limits())) {
            String now = clock.instant().toString();
            assertEquals(200, get(f, ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "", now,
                    Signing.nonce())).status());
            assertEquals(200, get(f, ServerFixture.signedHeaders(Signing.OTHER_LINE, "GET", HEALTH, "", now,
                    Signing.nonce())).status());
        }
    }

    @Test
    void removedSecretIsNoLongerAccepted() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(10, clock), Signing.OTHER_LINE,
                ServerFixture.limits())) {
            assertProblem(get(f, ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                    clock.instant().toString(), Signing.nonce())), 401, "unauthenticated");
        }
    }

    @Test
    void skewBeyondTheWindowEitherWayIsStale() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            Instant now = f.clock.instant();
            for (Duration skew : List.of(Duration.ofSeconds(31), Duration.ofSeconds(-31), Duration.ofHours(1))) {
                List<String> headers = ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                        now.plus(skew).toString(), Signing.nonce());
                assertProblem(get(f, headers), 401, "stale_request");
            }
            for (Duration skew : List.of(Duration.ofSeconds(30), Duration.ofSeconds(-0))) {
                List<String> headers = ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                        now.plus(skew).toString(), Signing.nonce());
                assertEquals(200, get(f, headers).status());
            }
            ((TestClock) f.clock).advance(Duration.ofSeconds(30));
            assertEquals(200, get(f, ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                    now.toString(), Signing.nonce())).status(), "30 s behind is still inside the window");
            assertTrue(f.ops.calls.size() == 3);
        }
    }

    @Test
    void replayIs401Replayed() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = f.signedHeaders("GET", HEALTH, "");
            assertEquals(200, get(f, headers).status());
            assertProblem(get(f, headers), 401, "replayed_request");
            assertEquals(1, f.ops.calls.size());
        }
    }

    @Test
    void replayAfterARestartIsStillRefused() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        List<String> headers;
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.persistent(data, 100, clock),
                Signing.SECRET_LINE, ServerFixture.limits())) {
            headers = f.signedHeaders("POST", "/v1/instances/mc-0001/start", "");
            assertEquals(404, RawHttp.exchange(f.port,
                    RawHttp.request("POST", "/v1/instances/mc-0001/start", headers, "")).status());
        }
        clock.advance(Duration.ofSeconds(3));
        try (ServerFixture restarted = ServerFixture.start(dir, clock, NonceStore.persistent(data, 100, clock),
                Signing.SECRET_LINE, ServerFixture.limits())) {
            assertProblem(RawHttp.exchange(restarted.port,
                    RawHttp.request("POST", "/v1/instances/mc-0001/start", headers, "")), 401, "replayed_request");
            assertTrue(restarted.ops.calls.isEmpty());
            assertEquals(200, restarted.send("GET", HEALTH, "").status());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"short", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAAAAA+",
            "AAAAAAAAAAAAAAAAAAAAAAAAA"})
    void badNonceSyntaxIs401EvenWhenSigned(String nonce) throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                    f.clock.instant().toString(), nonce);
            assertProblem(get(f, headers), 401, "unauthenticated");
        }
    }

    @Test
    void badTimestampSyntaxIs401EvenWhenSigned() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            List<String> headers = ServerFixture.signedHeaders(Signing.SECRET_LINE, "GET", HEALTH, "",
                    "2026-12-01T19:04:05+00:00", Signing.nonce());
            assertProblem(get(f, headers), 401, "unauthenticated");
        }
    }

    @Test
    void tamperedBodyIs401() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            String path = "/v1/instances/mc-0001/stop";
            List<String> headers = new ArrayList<>(f.signedHeaders("POST", path, "{\"timeoutSeconds\":10}"));
            headers.add("Content-Type: application/json");
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("POST", path, headers, "{\"timeoutSeconds\":0}")),
                    401, "unauthenticated");
            assertTrue(f.ops.calls.isEmpty());
        }
    }

    @Test
    void unauthenticatedUnknownRouteIs401Not404() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            for (String path : List.of("/nope", "/v1/instances/mc-0001/exec", "/v2/health", "/", "/v1/health/")) {
                assertProblem(RawHttp.exchange(f.port, RawHttp.request("GET", path, List.of(), "")), 401,
                        "unauthenticated");
            }
            assertProblem(RawHttp.exchange(f.port, RawHttp.request("PATCH", HEALTH, List.of(), "")), 401,
                    "unauthenticated");
        }
    }

    @Test
    void fullNonceMemoryIs503Busy() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        try (ServerFixture f = ServerFixture.start(dir, clock, NonceStore.inMemory(2, clock), Signing.SECRET_LINE,
                ServerFixture.limits())) {
            assertEquals(200, f.send("GET", HEALTH, "").status());
            assertEquals(200, f.send("GET", HEALTH, "").status());
            assertProblem(f.send("GET", HEALTH, ""), 503, "busy");
            clock.advance(NonceStore.RETENTION.plusSeconds(1));
            assertEquals(200, f.send("GET", HEALTH, "").status());
        }
    }
}
