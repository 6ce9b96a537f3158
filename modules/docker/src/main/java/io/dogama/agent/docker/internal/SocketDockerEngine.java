package io.dogama.agent.docker.internal;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.docker.ContainerInfo;
import io.dogama.agent.docker.ContainerStats;
import io.dogama.agent.docker.ContainerSummary;
import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerConflictException;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerNotFoundException;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerTimeoutException;
import io.dogama.agent.docker.DockerUnavailableException;
import io.dogama.agent.docker.EngineInfo;
import io.dogama.agent.docker.EngineVersion;
import io.dogama.agent.docker.ImageInfo;
import io.dogama.agent.docker.NetworkInfo;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** The engine client: every operation of {@link DockerEngine}, each one fixed request. */
final class SocketDockerEngine implements DockerEngine {
    private static final System.Logger LOG = System.getLogger(SocketDockerEngine.class.getName());

    private final HttpTransport http;
    private final DockerLimits limits;
    private final ApiVersion api;
    private final Stats stats = new Stats();
    /** A permit per long call that may run ({@link DockerLimits#maxLongCalls()}); fair: none waits past its turn. */
    private final Semaphore longCalls;

    SocketDockerEngine(HttpTransport http, ApiVersion api) {
        this.http = http;
        this.limits = http.limits();
        this.api = api;
        this.longCalls = new Semaphore(limits.maxLongCalls(), true);
    }

    ApiVersion api() {
        return api;
    }

    /** @return about how many long calls wait for their turn now (the tests wait for one to be queued) */
    int longCallsWaiting() {
        return longCalls.getQueueLength();
    }

    HttpTransport transport() {
        return http;
    }

    private Target v() {
        return Target.versioned(api);
    }

    private HttpTransport.Response call(Request req) throws DockerException {
        return http.exchange(req, Deadline.in(limits.requestTimeout()), limits.readTimeout());
    }

    /** Reads what is kept of an answer's body. */
    @FunctionalInterface
    private interface Keep<T> {
        T read(BodyReader body) throws DockerException;
    }

    /** An answer's status, and what was kept of its body (null for any status but the one expected). */
    private record Answer<T>(int status, T kept) {
    }

    /**
     * A call whose answer is read as it arrives by {@code keep}, never buffered whole ({@link Shape} says why).
     *
     * @param absent whether a 404 is the answer "none" (empty) rather than a failure
     * @return what {@code keep} made of the answer to status {@code ok}; empty for a 404 when {@code absent}
     */
    private <T> Optional<T> streamed(String op, Request req, int ok, boolean absent, Keep<T> keep)
            throws DockerException {
        Answer<T> a = http.exchange(req, Deadline.in(limits.requestTimeout()), limits.readTimeout(), (status, body) -> {
            if (status == ok) {
                return new Answer<>(status, keep.read(body));
            }
            // Read to its end, and the failure thrown only after the exchange: the transport uses a connection
            // again only after an answer handled without one.
            body.discard(limits.maxBodyBytes());
            return new Answer<T>(status, null);
        });
        if (a.kept() != null) {
            return Optional.of(a.kept());
        }
        if (absent && a.status() == 404) {
            return Optional.empty();
        }
        throw failure(op, a.status());
    }

    /** {@link #streamed} of a JSON object, keeping only {@code shape}. */
    private Optional<Tree> json(String op, Request req, Shape shape, boolean absent, int ok) throws DockerException {
        return streamed(op, req, ok, absent, body -> Tree.read(body, limits.maxBodyBytes(), shape));
    }

    private Tree json(String op, Request req, Shape shape, int ok) throws DockerException {
        return json(op, req, shape, false, ok).orElseThrow();
    }

    /** Maps a status this operation does not expect to a typed failure, logging only what it was. */
    static DockerException failure(String op, int status) {
        return failure(op, status, false);
    }

    /**
     * @param aboutEngineState the request named nothing but one of the engine's containers (see
     *                         {@link DockerApiException#aboutEngineState()})
     */
    private static DockerException failure(String op, int status, boolean aboutEngineState) {
        LOG.log(Level.DEBUG, "docker: {0} answered status {1}", op, status);
        return switch (status) {
            case 404 -> new DockerNotFoundException(op + ": not found");
            case 409 -> new DockerConflictException(op + ": conflict");
            default -> new DockerApiException(op + ": the engine refused", status, aboutEngineState);
        };
    }

    private static HttpTransport.Response expect(String op, HttpTransport.Response r, int... ok)
            throws DockerException {
        for (int s : ok) {
            if (r.status() == s) {
                return r;
            }
        }
        throw failure(op, r.status());
    }

    @Override
    public void ping() throws DockerException {
        HttpTransport.Response r = http.exchange(Request.get(v().path("_ping")), Deadline.in(limits.pingTimeout()),
                limits.pingTimeout());
        expect("ping", r, 200);
        if (!"OK".equals(new String(r.body(), java.nio.charset.StandardCharsets.US_ASCII))) {
            throw new DockerProtocolException("ping: unexpected answer");
        }
    }

    @Override
    public EngineVersion version() throws DockerException {
        Tree t = Tree.parse(expect("version", call(Request.get(v().path("version"))), 200).body());
        return new EngineVersion(t.str("Version", ""), t.str("ApiVersion"), api.toString());
    }

    @Override
    public EngineInfo info() throws DockerException {
        Tree t = json("info", Request.get(v().path("info")),
                Shape.fields(Map.of("DockerRootDir", Shape.WHOLE, "NCPU", Shape.WHOLE)), 200);
        long cpus = t.num("NCPU", 0);
        if (cpus < 1 || cpus > EngineInfo.MAX_CPUS) {
            throw new DockerProtocolException("info: the engine's CPU count is missing or out of range");
        }
        return new EngineInfo(dataRoot(t.str("DockerRootDir")), (int) cpus);
    }

    private static Path dataRoot(String root) throws DockerProtocolException {
        // The engine's text never reaches a message; a path that is not plain would defeat the comparisons made
        // with it (a relative one, or one with "..", names no fixed folder).
        try {
            Path p = Path.of(root);
            if (p.isAbsolute() && p.equals(p.normalize()) && p.toString().equals(root)) {
                return p;
            }
        } catch (java.nio.file.InvalidPathException e) {
            // fall through: refused as below
        }
        throw new DockerProtocolException("info: the engine's data root is not an absolute, normal path");
    }

    @Override
    public Optional<ImageInfo> inspectImage(String ref) throws DockerException {
        Optional<Tree> t = json("inspect image", Request.get(v().path("images").image(ref).path("json")), Views.IMAGE,
                true, 200);
        return t.isEmpty() ? Optional.empty() : Optional.of(Views.image(t.get()));
    }

    @Override
    public void pullImage(String ref) throws DockerException {
        Refs.ImageRef parsed = Refs.parse(ref);
        if (parsed.tag() == null && parsed.digest() == null) {
            throw new IllegalArgumentException("docker: a pull needs a tag or a digest");
        }
        // As the docker CLI does: the name, and the digest (preferred) or tag apart.
        Target t = v().path("images", "create").query("fromImage", parsed.name())
                .query("tag", parsed.digest() != null ? parsed.digest() : parsed.tag());
        longCall(limits.pullTimeout(), deadline -> http.exchange(Request.post(t), deadline, limits.readTimeout(),
                (status, body) -> {
                    if (status != 200) {
                        body.discard(limits.maxBodyBytes());
                        throw failure("pull image", status);
                    }
                    new PullStream(body, limits.maxPullStreamBytes(), limits.maxPullMessageBytes()).consume();
                    return null;
                }));
    }

    @Override
    public String createContainer(ContainerSpec spec, List<NetworkInfo> networks) throws DockerException {
        byte[] body = CreateBody.json(spec);
        if (networks.size() != spec.networks().size()) {
            throw new IllegalArgumentException("docker: one looked-up network per network of the spec");
        }
        // The further networks are connected by the ID found (DockerEngine.lookUpNetworks says why).
        List<String> extra = new ArrayList<>();
        for (NetworkInfo n : networks) {
            if (!Refs.ENGINE_ID.matcher(n.id()).matches()) {
                throw new DockerProtocolException("inspect network: malformed network ID");
            }
            extra.add(n.id());
        }
        extra.removeFirst();
        Target t = v().path("containers", "create").query("name", Refs.container(spec.name()));
        String id = json("create container", Request.post(t, body), Shape.fields(Map.of("Id", Shape.WHOLE)), 201)
                .str("Id");
        if (!Refs.ENGINE_ID.matcher(id).matches()) {
            // Removed below if a network fails, and by the caller if the create is undone: never a name.
            throw new DockerProtocolException("create container: malformed container ID");
        }
        try {
            for (String network : extra) {
                Target c = v().path("networks").network(network).path("connect");
                expect("connect network", call(Request.post(c, CreateBody.connectJson(id))), 200);
            }
        } catch (DockerException | RuntimeException e) {
            // A half-made container must not be left behind (SPEC section 10).
            try {
                removeContainer(id);
            } catch (DockerException | RuntimeException cleanup) {
                // It may still exist: a failure whose effect is unknown, so that the caller looks for the
                // container (as after a lost answer) instead of taking the create as refused.
                DockerUnavailableException unknown = new DockerUnavailableException(
                        "create container: a network could not be connected and the container could not be removed",
                        e);
                unknown.addSuppressed(cleanup);
                throw unknown;
            }
            throw e;
        }
        return id;
    }

    @Override
    public Optional<ContainerInfo> inspectContainer(String idOrName) throws DockerException {
        Optional<Tree> t = json("inspect container", Request.get(v().path("containers").container(idOrName).path("json")),
                Views.CONTAINER, true, 200);
        return t.isEmpty() ? Optional.empty() : Optional.of(Views.container(t.get()));
    }

    @Override
    public void startContainer(String id) throws DockerException {
        HttpTransport.Response r = call(Request.post(v().path("containers").container(id).path("start")));
        // 304: already running, which is what the caller wants.
        if (r.status() != 204 && r.status() != 304) {
            // The request is the container's ID and nothing else: a refusal is about the container's
            // state inside the engine (found in the soak: after an engine restart, a 400 from its
            // network-endpoint store).
            throw failure("start container", r.status(), true);
        }
    }

    @Override
    public void stopContainer(String id, int timeoutSeconds) throws DockerException {
        stopLike("stop container", "stop", id, timeoutSeconds, 204, 304);
    }

    @Override
    public void restartContainer(String id, int timeoutSeconds) throws DockerException {
        stopLike("restart container", "restart", id, timeoutSeconds, 204);
    }

    /**
     * The engine answers a stop only once the container is gone, up to the timeout later: the
     * silence allowed equals the whole deadline (timeout plus margin), not the read timeout.
     */
    private void stopLike(String op, String word, String id, int timeoutSeconds, int... ok) throws DockerException {
        if (timeoutSeconds < 0 || timeoutSeconds > MAX_STOP_TIMEOUT_SECONDS) {
            throw new IllegalArgumentException("docker: stop timeout out of range");
        }
        Target t = v().path("containers").container(id).path(word).query("t", timeoutSeconds);
        Duration bound = Duration.ofSeconds(timeoutSeconds).plus(limits.stopMargin());
        expect(op, longCall(bound, deadline -> http.exchange(Request.post(t), deadline, bound)), ok);
    }

    /** A call that may hold its connection for minutes, bounded by the deadline it is given. */
    @FunctionalInterface
    private interface LongCall<T> {
        T run(Deadline deadline) throws DockerException;
    }

    /**
     * Runs {@code call} once fewer than {@link DockerLimits#maxLongCalls()} long calls run. It may wait for
     * that as long as the call itself may take, and its own deadline starts only then: a stop queued behind
     * others still gives the container its whole timeout, so the agent never gives up before the engine.
     */
    private <T> T longCall(Duration bound, LongCall<T> call) throws DockerException {
        try {
            if (!longCalls.tryAcquire(bound.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new DockerTimeoutException("no engine connection for a long call within its own bound");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DockerUnavailableException("interrupted while waiting for the engine", e);
        }
        try {
            return call.run(Deadline.in(bound));
        } finally {
            longCalls.release();
        }
    }

    @Override
    public void renameContainer(String id, String newName) throws DockerException {
        Target t = v().path("containers").container(id).path("rename").query("name", Refs.container(newName));
        expect("rename container", call(Request.post(t)), 204);
    }

    @Override
    public void removeContainer(String id) throws DockerException {
        // force: running or not; v=false: never the container's volumes; link=false: no legacy links.
        Target t = v().path("containers").container(id).query("force", true).query("v", false).query("link", false);
        expect("remove container", call(Request.delete(t)), 204);
    }

    @Override
    public ContainerStats stats(String id) throws DockerException {
        Target t = v().path("containers").container(id).path("stats").query("stream", false).query("one-shot", true);
        // Kept whole: the engine's own numbers, within what one answer may keep.
        return stats.compute(id, json("stats", Request.get(t), Shape.WHOLE, 200));
    }

    @Override
    public List<ContainerSummary> listContainersByLabel(String key, String value) throws DockerException {
        String filter = CreateBody.labelFilter(Refs.labelKey(key), Refs.labelValue(value));
        Target t = v().path("containers", "json").query("all", true).query("filters", filter);
        // Streamed as the listing of published ports is, and as large (the containers of every instance may be
        // listed): what is kept of each is the agent's own, about 600 units (Tree.MAX_LISTING_KEPT_UNITS).
        List<Tree> listed = streamed("list containers", Request.get(t), 200, false,
                body -> Tree.readArray(body, limits.maxListingBytes(), Views.SUMMARY, Tree.MAX_LISTING_KEPT_UNITS))
                .orElseThrow();
        List<ContainerSummary> out = new ArrayList<>(listed.size());
        for (Tree c : listed) {
            out.add(Views.summary(c));
        }
        return out;
    }

    @Override
    public Set<HostPort> publishedHostPorts() throws DockerException {
        // all=false: only running containers hold host ports. Read as it arrives, never buffered: PortListing.
        Target t = v().path("containers", "json").query("all", false);
        return streamed("list containers", Request.get(t), 200, false,
                body -> PortListing.read(body, limits.maxListingBytes())).orElseThrow();
    }

    @Override
    public Optional<NetworkInfo> inspectNetwork(String name) throws DockerException {
        Optional<Tree> t = json("inspect network", Request.get(v().path("networks").network(name)), Views.NETWORK, true,
                200);
        return t.isEmpty() ? Optional.empty() : Optional.of(Views.network(t.get()));
    }

    @Override
    public void close() {
        http.close();
    }
}
