package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerCallObserver;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerProtocolException;
import io.dogama.agent.docker.DockerUnavailableException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Creates engine clients for {@link DockerEngine#connect(Path, DockerLimits)}. Public only because
 * the API interface lives in another package of this module; the package is never exported.
 */
public final class Engines {
    private static final System.Logger LOG = System.getLogger(Engines.class.getName());
    static final ApiVersion MIN = ApiVersion.of(DockerEngine.MIN_API_VERSION);
    static final ApiVersion MAX = ApiVersion.of(DockerEngine.MAX_API_VERSION);

    private Engines() {
    }

    /**
     * Negotiates the API version once and returns a client bound to it.
     *
     * @param socket the engine socket
     * @param limits the limits
     * @param observer told about every call
     * @return the client
     * @throws DockerException as {@link DockerEngine#connect(Path, DockerLimits)} documents
     */
    public static DockerEngine connect(Path socket, DockerLimits limits, DockerCallObserver observer)
            throws DockerException {
        Objects.requireNonNull(socket, "socket");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(observer, "observer");
        HttpTransport http = new HttpTransport(socket, limits, observer);
        try {
            // The one unversioned request: it tells which version to put in every other path.
            HttpTransport.Response r = http.exchange(Request.get(Target.unversioned().path("version")),
                    Deadline.in(limits.requestTimeout()), limits.readTimeout());
            if (r.status() != 200) {
                throw SocketDockerEngine.failure("version", r.status());
            }
            Tree t = Tree.parse(r.body());
            ApiVersion negotiated = negotiate(t.str("ApiVersion"), t.str("MinAPIVersion", ""));
            LOG.log(Level.INFO, "docker: using engine API {0}", negotiated);
            return new SocketDockerEngine(http, negotiated);
        } catch (DockerException | RuntimeException e) {
            http.close();
            throw e;
        }
    }

    /**
     * @param engineMax the engine's {@code ApiVersion}
     * @param engineMin the engine's {@code MinAPIVersion}, or empty if it did not say
     * @return min(engine, {@link #MAX})
     * @throws DockerUnavailableException if that is below {@link #MIN}, or the engine's minimum is
     *                                    above {@link #MAX}
     * @throws DockerProtocolException    if a version is malformed
     */
    static ApiVersion negotiate(String engineMax, String engineMin) throws DockerException {
        ApiVersion offered = ApiVersion.parse(engineMax)
                .orElseThrow(() -> new DockerProtocolException("version: malformed ApiVersion"));
        Optional<ApiVersion> floor = engineMin.isEmpty() ? Optional.empty() : ApiVersion.parse(engineMin);
        if (!engineMin.isEmpty() && floor.isEmpty()) {
            throw new DockerProtocolException("version: malformed MinAPIVersion");
        }
        if (offered.compareTo(MIN) < 0) {
            throw DockerUnavailableException.lasting("the engine offers API " + offered + ", older than the minimum "
                    + MIN + " this agent needs; upgrade the Docker engine", null);
        }
        if (floor.isPresent() && floor.get().compareTo(MAX) > 0) {
            throw DockerUnavailableException.lasting("the engine requires API " + floor.get() + " or newer, above the "
                    + MAX + " this agent speaks", null);
        }
        return offered.compareTo(MAX) > 0 ? MAX : offered;
    }
}
