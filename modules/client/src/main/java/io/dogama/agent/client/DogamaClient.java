package io.dogama.agent.client;

import io.dogama.agent.client.internal.BoundedBody;
import io.dogama.agent.client.internal.Codec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A client of one agent: typed methods for every route of SPEC section 2, each request signed afresh
 * (SPEC section 3: millisecond RFC 3339 timestamp, 128-bit nonce from {@link java.security.SecureRandom}).
 * Thread-safe; one instance per agent, closed when no longer needed.
 *
 * <pre>{@code
 * try (DogamaClient agent = DogamaClient.builder().uri(URI.create("http://10.0.0.5:8480"))
 *         .secretFile(Path.of("/run/secrets/dogama-agent-hmac")).build()) {
 *     Instance created = agent.create(plan);
 *     Instance running = agent.start(created.instanceId());
 * }
 * }</pre>
 *
 * <p><b>Failures.</b> Every method throws a {@link DogamaClientException}: a {@link DogamaProblemException}
 * when the agent answered with a problem (its {@link Problem} carries the code and, for
 * {@code plan_rejected}, every violation); a {@link DogamaTransportException} when no answer came (then the
 * outcome of a mutation is unknown); a {@link DogamaProtocolException} when the answer is not what the
 * route promises. IDs are checked against SPEC section 5 before anything is sent
 * ({@link IllegalArgumentException}), so no path segment can hold {@code /}, {@code ..} or {@code %}.
 *
 * <p><b>Retries.</b> The client never resends a request on its own, except, when enabled with
 * {@link Builder#retryStaleRequests(boolean)}, once after {@code 401 stale_request}: the agent never acts on a
 * stale request, so a re-signed resend (a new nonce) cannot apply a mutation twice. But where the JDK resends
 * POST, PUT and DELETE too ({@value #JDK_RETRIES_ALL_METHODS}, below), a {@code stale_request} to one of them may
 * answer the JDK's unchanged resend of a delivery the agent acted on (the agent checks the timestamp before the
 * nonce, and the resend may come after the 30 s window): it is then a {@link DogamaTransportException}, an unknown
 * outcome, never retried. The JDK's
 * {@link HttpClient} may resend a request unchanged, once, when a reused connection closes under it (a GET by
 * default; POST, PUT and DELETE too if {@code -Djdk.httpclient.enableAllMethodRetry=true} is set in the JVM). The
 * agent refuses such a resend as {@code replayed_request}, and since this client never reuses a nonce, that answer
 * is a {@link DogamaTransportException}: the first delivery may have been acted on, so the outcome is unknown.
 *
 * <p><b>Idle connections.</b> The agent closes a connection idle for 10 s; the JDK keeps idle connections
 * for 30 s unless {@code -Djdk.httpclient.keepalive.timeout=5} (seconds) is set. Set it, or a request
 * sent down a connection the agent is closing fails with a {@link DogamaTransportException}.
 */
public final class DogamaClient implements AutoCloseable {
    /** Default connect timeout. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Default time for a whole answer. A stop or restart gets its {@code timeoutSeconds} (30 when not
     * given, the agent's default) on top, as the agent waits that long for the container.
     */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** Largest stop timeout the agent accepts (SPEC section 2). */
    public static final int MAX_STOP_TIMEOUT_SECONDS = 300;
    /** The agent's stop timeout when none is given. */
    public static final int DEFAULT_STOP_TIMEOUT_SECONDS = 30;
    /**
     * Most bytes of the list's body the client reads; a longer answer is a {@link DogamaProtocolException}.
     * The agent's longest, a list of 10,000 instances (its largest instance limit), is about 2.5 MB.
     */
    public static final int MAX_LIST_ANSWER_BYTES = 4 << 20;
    /**
     * Most bytes of any other answer's body: an instance, a problem with 64 violations, the metrics are a few KiB.
     * Bounded apart from the list so that a hostile answer holds less of the caller's heap.
     */
    public static final int MAX_ANSWER_BYTES = 256 << 10;
    /**
     * Default time for a create or a replace: the agent may pull the image first (its limit is 10 minutes), and a
     * replace stops the old container (30 s, and 30 s more for the engine) before it.
     */
    public static final Duration DEFAULT_CREATE_TIMEOUT = Duration.ofMinutes(12);
    /** The JDK's switch that makes its HttpClient resend POST, PUT and DELETE as it resends a GET. */
    public static final String JDK_RETRIES_ALL_METHODS = "jdk.httpclient.enableAllMethodRetry";

    private static final String JSON = "application/json";
    private static final java.util.regex.Pattern METHOD = java.util.regex.Pattern.compile("^[A-Z]{1,16}$");
    /** The media type of the metrics (its parameter, {@code version=0.0.4}, is not compared). */
    private static final String METRICS_MEDIA_TYPE = "text/plain";

    private final URI base;
    private final RequestSigner signer;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final Duration createTimeout;
    /** Whether the JDK may resend a request other than a GET unchanged ({@link #JDK_RETRIES_ALL_METHODS}). */
    private final boolean jdkResendsAll;
    private final boolean retryStale;

    private DogamaClient(Builder b) {
        this.base = b.uri;
        this.signer = b.signer;
        this.requestTimeout = b.requestTimeout;
        this.createTimeout = b.createTimeout;
        this.jdkResendsAll = jdkResendsAll();
        this.retryStale = b.retryStale;
        // Never through a proxy the JVM is told of (http.proxyHost, a default ProxySelector): a signed request is
        // sent to the agent only, and an answer is the agent's or a plain transport failure.
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(b.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).proxy(HttpClient.Builder.NO_PROXY).build();
    }

    /**
     * Read as the JDK reads it ({@code java.net.http}'s {@code MultiExchange}): the system property, else the
     * runtime's {@code conf/net.properties}; an empty value counts as true.
     *
     * @return whether the JDK's HttpClient resends POST, PUT and DELETE
     */
    static boolean jdkResendsAll() {
        String v = System.getProperty(JDK_RETRIES_ALL_METHODS);
        if (v == null) {
            java.util.Properties net = new java.util.Properties();
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(
                    java.nio.file.Path.of(System.getProperty("java.home"), "conf", "net.properties"))) {
                net.load(in);
            } catch (java.io.IOException | RuntimeException e) {
                // No such file: the JDK's default, GET and HEAD only.
            }
            v = net.getProperty(JDK_RETRIES_ALL_METHODS);
        }
        return v != null && (v.isEmpty() || Boolean.parseBoolean(v.strip()));
    }

    /** @return a builder; {@link Builder#uri} and a secret are required */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ routes

    /**
     * {@code GET /v1/health}.
     *
     * @return {@code ok} when the agent reached the Docker engine
     * @throws DogamaProblemException {@code docker_unavailable} (503) otherwise
     */
    public Health health() {
        return call("GET", "/v1/health", null, 200, Codec::health, requestTimeout);
    }

    /**
     * {@code GET /v1/metrics} (1.1): the agent's own metrics.
     *
     * @return the Prometheus text exposition (format 0.0.4), as received
     * @throws DogamaProblemException   if the agent refuses the request
     * @throws DogamaProtocolException  if the answer is not {@code text/plain}
     */
    public String metrics() {
        // Checked as every other answer: a redirect is no answer of the agent's, a replayed request an unknown one.
        RawResponse r = checked("GET", "/v1/metrics", null, Set.of(200), requestTimeout, MAX_ANSWER_BYTES);
        if (!mediaType(r.contentType()).equals(METRICS_MEDIA_TYPE)) {
            throw new DogamaProtocolException("client: GET /v1/metrics answered with media type '" + r.contentType()
                    + "'", null);
        }
        return r.text();
    }

    /**
     * {@code POST /v1/check-disk}.
     *
     * @param paths 1 to 16 absolute host paths below the allowed roots
     * @return capacity per path, in request order
     * @throws DogamaProblemException {@code plan_rejected} if any path fails (then no capacity at all)
     */
    public List<DiskSpace> checkDisk(List<String> paths) {
        return call("POST", "/v1/check-disk", Map.of("paths", List.copyOf(paths)), 200, Codec::disk, requestTimeout);
    }

    /**
     * {@code POST /v1/check-ports}.
     *
     * @param bindings 1 to 64 bindings
     * @return availability per binding, in request order
     */
    public List<PortCheck> checkPorts(List<PortBinding> bindings) {
        List<Object> list = new ArrayList<>();
        bindings.forEach(b -> list.add(Codec.bindingMap(b)));
        return call("POST", "/v1/check-ports", Map.of("bindings", list), 200, Codec::ports, requestTimeout);
    }

    /**
     * {@code GET /v1/instances}.
     *
     * @return the registered instances, sorted by ID
     */
    public List<InstanceSummary> list() {
        return call("GET", "/v1/instances", null, Set.of(200), Codec::instances, requestTimeout,
                MAX_LIST_ANSWER_BYTES);
    }

    /**
     * {@code POST /v1/instances}: 201 when created, 200 when the same ID already exists with the same plan
     * digest (idempotent), both answered with the instance.
     *
     * @param plan the plan
     * @return the instance, {@code CREATED}
     * @throws DogamaProblemException e.g. {@code plan_rejected}, {@code instance_exists}, {@code port_conflict}
     */
    public Instance create(Plan plan) {
        return createOrFind(plan).instance();
    }

    /**
     * As {@link #create}, telling which of its two answers came: after an answer lost on the way, a resend that
     * finds the instance registered with the same plan digest says so.
     *
     * @param plan the plan
     * @return the instance, and whether this request created it (201) rather than found it (200)
     * @throws DogamaProblemException as {@link #create}
     */
    public Creation createOrFind(Plan plan) {
        String path = "/v1/instances";
        RawResponse r = checked("POST", path, Codec.write(Codec.planMap(plan)), Set.of(200, 201), createTimeout,
                MAX_ANSWER_BYTES);
        return new Creation(parsed("POST", path, r, Codec::instance), r.status() == 201);
    }

    /**
     * {@code PUT /v1/instances/{id}}.
     *
     * @param instanceId       the instance
     * @param plan             the new plan (same instance ID)
     * @param expectedRevision the revision the caller last saw
     * @return the instance with revision {@code expectedRevision + 1}
     * @throws DogamaProblemException e.g. {@code revision_conflict}, {@code plan_rejected}
     */
    public Instance replace(String instanceId, Plan plan, long expectedRevision) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("plan", Codec.planMap(plan));
        body.put("expectedRevision", expectedRevision);
        return call("PUT", path(instanceId), body, Set.of(200), Codec::instance, createTimeout, MAX_ANSWER_BYTES);
    }

    /**
     * {@code GET /v1/instances/{id}}.
     *
     * @param instanceId the instance
     * @return the instance
     * @throws DogamaProblemException {@code unknown_instance} if it is not registered
     */
    public Instance inspect(String instanceId) {
        return call("GET", path(instanceId), null, 200, Codec::instance, requestTimeout);
    }

    /**
     * {@code GET /v1/instances/{id}/stats}.
     *
     * @param instanceId the instance
     * @return one sample
     */
    public Stats stats(String instanceId) {
        return call("GET", path(instanceId) + "/stats", null, 200, Codec::stats, requestTimeout);
    }

    /**
     * {@code POST /v1/instances/{id}/start}; already running is success.
     *
     * @param instanceId the instance
     * @return the instance, {@code RUNNING}
     */
    public Instance start(String instanceId) {
        return call("POST", path(instanceId) + "/start", null, 200, Codec::instance, requestTimeout);
    }

    /**
     * {@code POST /v1/instances/{id}/stop}; already stopped is success.
     *
     * @param instanceId the instance
     * @param timeout    how long the engine waits before it kills the container: whole seconds, 0 to 300
     * @return the instance, {@code STOPPED}
     * @throws IllegalArgumentException if the timeout is not whole seconds in range
     */
    public Instance stop(String instanceId, Duration timeout) {
        int s = seconds(timeout);
        return call("POST", path(instanceId) + "/stop", Map.of("timeoutSeconds", s), 200, Codec::instance,
                requestTimeout.plusSeconds(s));
    }

    /**
     * {@code POST /v1/instances/{id}/restart}.
     *
     * @param instanceId the instance
     * @param timeout    stop timeout: whole seconds, 0 to 300
     * @return the instance, {@code RUNNING}
     * @throws IllegalArgumentException if the timeout is not whole seconds in range
     */
    public Instance restart(String instanceId, Duration timeout) {
        int s = seconds(timeout);
        return call("POST", path(instanceId) + "/restart", Map.of("timeoutSeconds", s), 200, Codec::instance,
                requestTimeout.plusSeconds(s));
    }

    /**
     * {@code DELETE /v1/instances/{id}}: removes the container, keeps all host data, ends the registration.
     *
     * @param instanceId the instance
     */
    public void delete(String instanceId) {
        call("DELETE", path(instanceId), null, 204, m -> null, requestTimeout);
    }

    /**
     * Signs and sends any request and returns the answer as received, for what the typed methods do not
     * cover (a route of a newer agent, a test). Never retried, not even on {@code stale_request}.
     *
     * @param method  upper-case method
     * @param rawPath path exactly as it is to be sent and signed, starting with {@code /}: printable ASCII without
     *                {@code #}, the bytes the agent verifies (the JDK would percent-encode anything else, or drop a
     *                fragment, after the signing)
     * @param json    body sent as {@code application/json}, or null for none
     * @return the answer, its body at most {@link #MAX_LIST_ANSWER_BYTES}
     * @throws IllegalArgumentException if the method is not upper-case letters or the path is not as above
     * @throws DogamaTransportException if no answer came
     */
    public RawResponse exchange(String method, String rawPath, String json) {
        if (!METHOD.matcher(method).matches()) {
            throw new IllegalArgumentException("client: a method is 1 to 16 upper-case letters");
        }
        if (!rawPath.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '#')) {
            throw new IllegalArgumentException("client: a path is printable ASCII without # (sent as signed)");
        }
        byte[] body = json == null ? null : json.getBytes(StandardCharsets.UTF_8);
        return send(method, rawPath, body, requestTimeout, MAX_LIST_ANSWER_BYTES);
    }

    /** Closes the underlying {@link HttpClient}, waiting for requests in flight. */
    @Override
    public void close() {
        http.close();
    }

    @Override
    public String toString() {
        return "DogamaClient[" + base + "]";
    }

    // ------------------------------------------------------------------ mechanics

    private static String path(String instanceId) {
        return "/v1/instances/" + Ids.require("instanceId", instanceId);
    }

    private static int seconds(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.getNano() != 0 || timeout.isNegative() || timeout.getSeconds() > MAX_STOP_TIMEOUT_SECONDS) {
            throw new IllegalArgumentException("client: a stop timeout is whole seconds from 0 to "
                    + MAX_STOP_TIMEOUT_SECONDS);
        }
        return (int) timeout.getSeconds();
    }

    private <T> T call(String method, String path, Object body, int expected, Function<Map<String, Object>, T> read,
            Duration timeout) {
        return call(method, path, body, Set.of(expected), read, timeout, MAX_ANSWER_BYTES);
    }

    private <T> T call(String method, String path, Object body, Set<Integer> expected,
            Function<Map<String, Object>, T> read, Duration timeout, int maxAnswerBytes) {
        byte[] bytes = body == null ? null : Codec.write(body);
        return parsed(method, path, checked(method, path, bytes, expected, timeout, maxAnswerBytes), read);
    }

    /**
     * Sends (and, where allowed, resends once after {@code stale_request}), then checks the answer's status.
     *
     * @return an answer with one of the {@code expected} statuses
     * @throws DogamaTransportException after {@code replayed_request}, or a stale answer the JDK may have caused
     * @throws DogamaProtocolException  for any other status below 400
     * @throws DogamaProblemException   for a problem
     */
    private RawResponse checked(String method, String path, byte[] bytes, Set<Integer> expected, Duration timeout,
            int maxAnswerBytes) {
        RawResponse r = sendChecked(method, path, bytes, timeout, maxAnswerBytes);
        if (retryStale && stale(r)) {
            // Refused before the nonce was looked at or anything done, and this was the only delivery (sendChecked):
            // a re-signed resend is safe.
            r = sendChecked(method, path, bytes, timeout, maxAnswerBytes);
        }
        if (r.status() == 401 && Codec.problem(401, r.body()) instanceof Problem.Known k
                && k.problemCode() == ProblemCode.REPLAYED_REQUEST) {
            // This client never reuses a nonce: the same signed request reached the agent twice (the JDK's
            // HttpClient resends a request once when a reused connection closes under it), and the first delivery
            // may have been acted on. "Nothing was changed" would be wrong: the outcome is unknown.
            throw new DogamaTransportException("client: " + method + " " + path + " reached the agent twice (it "
                    + "answered replayed_request to a resend): the outcome of the first delivery is unknown", null);
        }
        if (!expected.contains(r.status())) {
            if (r.status() < 400) {
                // A redirect or another answer no route gives (a proxy's, say): not the agent's decision.
                throw new DogamaProtocolException("client: " + method + " " + path + " answered " + r.status()
                        + ", which no route of the agent answers", null);
            }
            throw new DogamaProblemException(method, path, Codec.problem(r.status(), r.body()));
        }
        return r;
    }

    /** @return the answer's JSON body read by {@code read}; null for 204 */
    private static <T> T parsed(String method, String path, RawResponse r, Function<Map<String, Object>, T> read) {
        if (r.status() == 204) {
            return null;
        }
        if (!mediaType(r.contentType()).equals(JSON)) {
            throw new DogamaProtocolException("client: " + method + " " + path + " answered " + r.status()
                    + " with media type '" + r.contentType() + "'", null);
        }
        try {
            return read.apply(Codec.object(r.body()));
        } catch (IllegalArgumentException e) {
            throw new DogamaProtocolException("client: " + method + " " + path + " answered " + r.status()
                    + " with an unexpected body: " + e.getMessage(), e);
        }
    }

    /**
     * {@link #send}, with a {@code stale_request} to anything but a GET turned into an unknown outcome where the JDK
     * may have resent it unchanged (the class's javadoc, "Retries").
     */
    private RawResponse sendChecked(String method, String path, byte[] body, Duration timeout, int maxAnswerBytes) {
        RawResponse r = send(method, path, body, timeout, maxAnswerBytes);
        if (jdkResendsAll && !method.equals("GET") && stale(r)) {
            throw new DogamaTransportException("client: " + method + " " + path + " was answered stale_request while "
                    + JDK_RETRIES_ALL_METHODS + " is set: it may answer the JDK's resend of a delivery the agent acted "
                    + "on, so the outcome is unknown", null);
        }
        return r;
    }

    private static boolean stale(RawResponse r) {
        return r.status() == 401 && Codec.problem(401, r.body()) instanceof Problem.Known k
                && k.problemCode() == ProblemCode.STALE_REQUEST;
    }

    private static String mediaType(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(java.util.Locale.ROOT);
    }

    private RawResponse send(String method, String path, byte[] body, Duration timeout, int maxAnswerBytes) {
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("client: a path starts with /");
        }
        byte[] signed = body == null ? new byte[0] : body;
        SignedHeaders h = signer.sign(method, path, signed);
        // Concatenated, not URI.resolve: the path is sent exactly as it was signed.
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout)
                .header(RequestSigner.AUTHORIZATION_HEADER, h.authorization())
                .header(RequestSigner.TIMESTAMP_HEADER, h.timestamp())
                .header(RequestSigner.NONCE_HEADER, h.nonce());
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", JSON).method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        }
        // The request's own timeout ends with the answer's head; the wait below bounds its body as well.
        CompletableFuture<HttpResponse<byte[]>> answer = http.sendAsync(b.build(),
                BoundedBody.handler(maxAnswerBytes));
        try {
            HttpResponse<byte[]> r = answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return new RawResponse(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new DogamaTransportException("client: " + method + " " + path + " timed out", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof BoundedBody.TooLargeException tooLarge) {
                throw new DogamaProtocolException("client: " + method + " " + path + ": "
                        + tooLarge.getMessage(), tooLarge);
            }
            if (cause instanceof HttpTimeoutException) {
                throw new DogamaTransportException("client: " + method + " " + path + " timed out", cause);
            }
            throw new DogamaTransportException("client: " + method + " " + path + " failed: " + cause, cause);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new DogamaTransportException("client: " + method + " " + path + " interrupted", e);
        }
    }

    /** Configures a {@link DogamaClient}; not thread-safe. */
    public static final class Builder {
        private URI uri;
        private String secretLine;
        private Clock clock = Clock.systemUTC();
        private RequestSigner signer;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration createTimeout = DEFAULT_CREATE_TIMEOUT;
        private boolean retryStale;

        private Builder() {
        }

        /**
         * @param uri the agent's base URI, {@code http://host:port} (no path)
         * @return this
         * @throws IllegalArgumentException if it is not an absolute http(s) URI without user info, path, query or
         *                                  fragment
         */
        public Builder uri(URI uri) {
            Objects.requireNonNull(uri, "uri");
            // No user info: it would never be sent, and toString() would print it.
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getRawUserInfo() != null
                    || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || "/".equals(uri.getRawPath()))
                    || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException("client: the agent URI is http(s)://host:port");
            }
            this.uri = URI.create(uri.getScheme() + "://" + uri.getRawAuthority());
            return this;
        }

        /**
         * @param secretLine line 1 of the agent's secret file (base64url of at least 32 bytes)
         * @return this
         * @throws IllegalArgumentException if it is not such a line (checked at {@link #build()})
         */
        public Builder secret(String secretLine) {
            this.secretLine = Objects.requireNonNull(secretLine, "secretLine");
            return this;
        }

        /**
         * Reads the secret from the agent's secret file: its first line signs (during a rotation, line 1 is
         * the new secret, which the agent already accepts).
         *
         * @param file the secret file; must not be readable or writable by others
         * @return this
         * @throws IOException              if it cannot be read
         * @throws IllegalArgumentException if it is empty or readable by others
         */
        public Builder secretFile(Path file) throws IOException {
            PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
            if (view != null) {
                Set<PosixFilePermission> p = view.readAttributes().permissions();
                if (p.contains(PosixFilePermission.OTHERS_READ) || p.contains(PosixFilePermission.OTHERS_WRITE)) {
                    throw new IllegalArgumentException("client: the secret file " + file + " is accessible to others");
                }
            }
            String first = Files.readString(file, StandardCharsets.US_ASCII).lines().findFirst().orElse("").strip();
            if (first.isEmpty()) {
                throw new IllegalArgumentException("client: the secret file " + file + " is empty");
            }
            this.secretLine = first;
            return this;
        }

        /**
         * @param clock where timestamps come from (default: the system clock)
         * @return this
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param timeout connect timeout (default {@link #DEFAULT_CONNECT_TIMEOUT})
         * @return this
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout);
            return this;
        }

        /**
         * @param timeout time for a whole answer (default {@link #DEFAULT_REQUEST_TIMEOUT}); a stop or restart
         *                gets its stop timeout on top
         * @return this
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout);
            return this;
        }

        /**
         * @param timeout time for the whole answer of a create or a replace (default
         *                {@link #DEFAULT_CREATE_TIMEOUT}: the agent may pull the image first)
         * @return this
         */
        public Builder createTimeout(Duration timeout) {
            this.createTimeout = positive(timeout);
            return this;
        }

        /**
         * Opt-in: after {@code 401 stale_request} (the timestamp was more than 30 s from the agent's clock, or
         * before a freshly started agent's start), re-sign with a new timestamp and nonce and send once more
         * (never a POST, PUT or DELETE while {@link #JDK_RETRIES_ALL_METHODS} is set: see the class's javadoc).
         * Safe for mutations, as the agent never acts on a stale request (it remembers the nonce of one up to 10
         * minutes ahead of its clock, so that it cannot be replayed later).
         * A lasting clock skew still fails: fix the clock. No other answer is ever retried. Default: off.
         *
         * @param retry whether to retry
         * @return this
         */
        public Builder retryStaleRequests(boolean retry) {
            this.retryStale = retry;
            return this;
        }

        /**
         * @return the client
         * @throws IllegalStateException    if the URI or the secret is missing
         * @throws IllegalArgumentException if the secret is not base64url of at least 32 bytes
         */
        public DogamaClient build() {
            if (uri == null) {
                throw new IllegalStateException("client: no agent URI");
            }
            if (secretLine == null) {
                throw new IllegalStateException("client: no secret");
            }
            signer = RequestSigner.of(secretLine, clock);
            return new DogamaClient(this);
        }

        private static Duration positive(Duration d) {
            Objects.requireNonNull(d, "timeout");
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException("client: a timeout is positive");
            }
            return d;
        }
    }
}
