package io.dogama.agent.docker;

import io.dogama.agent.core.ContainerSpec;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.docker.internal.Engines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Docker engine, reached over its Unix socket: typed operations only, nothing generic (SPEC
 * sections 1, 8, 10). There is no way to send a request this interface does not name: every path,
 * query and body is built by this module from typed, validated values, on the API version
 * negotiated once at {@link #connect(Path)}.
 *
 * <p>Arguments naming a container, image or network are checked against a strict pattern before
 * anything is sent; a value that does not match (one that could carry a path, query or header) is
 * refused with {@link IllegalArgumentException}, whose message never echoes it.
 *
 * <p>Every operation throws a {@link DockerException} subclass on failure:
 * {@link DockerNotFoundException} (404), {@link DockerConflictException} (409),
 * {@link DockerUnavailableException} (no connection, broken connection, closed client),
 * {@link DockerTimeoutException} (a {@link DockerLimits} deadline passed),
 * {@link DockerProtocolException} (malformed or oversized answer) or {@link DockerApiException}
 * (any other status). Messages never carry engine text. Implementations are thread-safe.
 */
public interface DockerEngine extends AutoCloseable {

    /** Lowest API version the agent accepts: below it legacy defaults (shareable IPC) apply. */
    String MIN_API_VERSION = "1.41";
    /** Highest API version this client asks for. */
    String MAX_API_VERSION = "1.47";
    /** Longest stop or restart timeout accepted, in seconds (SPEC section 2 allows 0..300). */
    int MAX_STOP_TIMEOUT_SECONDS = 300;

    /**
     * Connects with {@link DockerLimits#DEFAULTS}.
     *
     * @param socket the engine's Unix socket
     * @return a client bound to the negotiated API version
     * @throws DockerUnavailableException if the socket does not answer, or the engine's API version
     *                                    is below {@value #MIN_API_VERSION}
     * @throws DockerException            on any other failure of {@code GET /version}
     * @see #connect(Path, DockerLimits)
     */
    static DockerEngine connect(Path socket) throws DockerException {
        return connect(socket, DockerLimits.DEFAULTS);
    }

    /**
     * Connects and negotiates the API version once: {@code GET /version}, then
     * min(engine's {@code ApiVersion}, {@value #MAX_API_VERSION}). An engine below
     * {@value #MIN_API_VERSION} is a start-up error. The connection is kept for later requests.
     *
     * @param socket the engine's Unix socket
     * @param limits timeouts and sizes
     * @return a client bound to the negotiated API version
     * @throws DockerUnavailableException if the socket does not answer, or the engine's API version
     *                                    is below {@value #MIN_API_VERSION} (or its minimum above
     *                                    {@value #MAX_API_VERSION})
     * @throws DockerException            on any other failure of {@code GET /version}
     */
    static DockerEngine connect(Path socket, DockerLimits limits) throws DockerException {
        return Engines.connect(socket, limits, DockerCallObserver.NONE);
    }

    /**
     * As {@link #connect(Path, DockerLimits)}, telling {@code observer} about every call (the version
     * negotiation included).
     *
     * @param socket   the engine's Unix socket
     * @param limits   timeouts and sizes
     * @param observer told about every call
     * @return a client bound to the negotiated API version
     * @throws DockerException as {@link #connect(Path, DockerLimits)}
     */
    static DockerEngine connect(Path socket, DockerLimits limits, DockerCallObserver observer) throws DockerException {
        return Engines.connect(socket, limits, observer);
    }

    /**
     * {@code GET /_ping}, bounded by {@link DockerLimits#pingTimeout()}.
     *
     * @throws DockerException if the engine does not answer {@code OK} in time
     */
    void ping() throws DockerException;

    /**
     * {@code GET /version}.
     *
     * @return the engine's version and the negotiated API version
     * @throws DockerException on failure
     */
    EngineVersion version() throws DockerException;

    /**
     * {@code GET /info}: the engine's data root ({@code DockerRootDir}, where it keeps every container's file
     * system, volume and state, as a path of the engine's host) and its CPUs ({@code NCPU}).
     *
     * @return what it says
     * @throws DockerProtocolException if it names no data root, or one that is not absolute and normal, or no CPU
     *                                 count from 1 to {@link EngineInfo#MAX_CPUS}
     * @throws DockerException         on any other failure
     */
    EngineInfo info() throws DockerException;

    /**
     * Inspects a local image.
     *
     * @param ref an image ID ({@code sha256:<64 hex>}) or a reference {@code [host[:port]/]path[:tag][@sha256:<hex>]}
     * @return the image, or empty if the engine has no such image
     * @throws IllegalArgumentException if {@code ref} is not a valid reference
     * @throws DockerException          on failure
     */
    Optional<ImageInfo> inspectImage(String ref) throws DockerException;

    /**
     * Pulls an image and reads the whole progress stream, bounded by
     * {@link DockerLimits#pullTimeout()}, {@link DockerLimits#maxPullStreamBytes()} and
     * {@link DockerLimits#maxPullMessageBytes()}. The caller checks the result with
     * {@link #inspectImage(String)}.
     *
     * @param ref a reference with a tag or a digest (a bare name would pull every tag)
     * @throws IllegalArgumentException  if {@code ref} is not a reference with a tag or digest
     * @throws DockerNotFoundException   if the registry has no such manifest
     * @throws DockerApiException        if any progress message reports an error (status 200), or
     *                                   on another status
     * @throws DockerException           on any other failure
     */
    void pullImage(String ref) throws DockerException;

    /**
     * Creates a container from an approved spec. This module alone turns the spec into the
     * engine's JSON and adds the fixed baseline of SPEC section 8 (no privileges, init, all
     * capabilities dropped but the spec's, no-new-privileges, private IPC and cgroup namespaces,
     * bounded resources and logs, bind mounts with {@code rprivate} propagation, no legacy binds).
     * The first network is the network mode; every further network is connected after create. If
     * a step after the create fails, the new container is removed before the failure propagates
     * (a cleanup failure is attached as suppressed).
     *
     * <p>The spec's image must be an image ID ({@code sha256:<hex>}) or a reference pinned by
     * digest: a tag could be moved between the agent's digest check and the create.
     *
     * @param spec the approved container
     * @return the new container's ID
     * @throws IllegalArgumentException  if a value fails this module's own defensive checks (a
     *                                   forbidden network mode, a relative mount path, a tag-only
     *                                   image, adding ALL capabilities, ...)
     * @throws DockerConflictException   if the name is taken
     * @throws DockerNotFoundException   if the image or a network does not exist
     * @throws DockerException           on any other failure
     */
    default String createContainer(ContainerSpec spec) throws DockerException {
        return createContainer(spec, lookUpNetworks(spec.networks()));
    }

    /**
     * As {@link #createContainer(ContainerSpec)}, with the spec's networks already looked up by
     * {@link #lookUpNetworks}: a caller may look them up beside its other look-ups, as long as it
     * creates right after (the window between the look-up and the create is the caller's).
     *
     * @param spec     the approved container
     * @param networks {@code spec.networks()} as {@link #lookUpNetworks} found them, in the same order
     * @return the new container's ID
     * @throws IllegalArgumentException if {@code networks} is not one network per network of the spec,
     *                                  or as for {@link #createContainer(ContainerSpec)}
     * @throws DockerException          as for {@link #createContainer(ContainerSpec)}
     */
    String createContainer(ContainerSpec spec, List<NetworkInfo> networks) throws DockerException;

    /**
     * Looks up the networks a container is to be made in, in order. Engine 20.10 creates a container
     * whose network mode names a missing network, and answers 200 to connecting a created container to
     * one: so every network is looked up before a create, and the further ones are connected by the ID
     * found. The engine answers a name it does not know with a network whose ID begins with it: only
     * an answer that names the network asked for counts. (It resolves the names a container was made
     * with again at each start, by the same rule, whatever form the create gave them in; the policy
     * therefore never approves a name that can be the start of an ID.)
     *
     * @param names network names
     * @return the networks, in the order of {@code names}
     * @throws DockerNotFoundException if one does not exist (the first missing one ends the look-up)
     * @throws DockerException         on any other failure
     */
    default List<NetworkInfo> lookUpNetworks(List<String> names) throws DockerException {
        List<NetworkInfo> found = new ArrayList<>(names.size());
        for (String name : names) {
            found.add(inspectNetwork(name).filter(n -> n.name().equals(name))
                    .orElseThrow(() -> new DockerNotFoundException("create container: network not found")));
        }
        return List.copyOf(found);
    }

    /**
     * Inspects a container.
     *
     * @param idOrName container ID or name
     * @return the typed view, or empty if no such container exists
     * @throws IllegalArgumentException  if {@code idOrName} is not a valid ID or name
     * @throws DockerProtocolException   also if the container publishes a port this view cannot
     *                                   represent (an engine-chosen host port, or SCTP)
     * @throws DockerException           on failure
     */
    Optional<ContainerInfo> inspectContainer(String idOrName) throws DockerException;

    /**
     * Starts a container; one already running is success (the engine answers 304).
     *
     * @param id container ID or name
     * @throws DockerNotFoundException if no such container exists
     * @throws DockerException         on failure
     */
    void startContainer(String id) throws DockerException;

    /**
     * Stops a container: the stop signal, then a kill after {@code timeoutSeconds}. One already
     * stopped is success (304). The call is bounded by the timeout plus
     * {@link DockerLimits#stopMargin()}.
     *
     * @param id             container ID or name
     * @param timeoutSeconds 0..{@value #MAX_STOP_TIMEOUT_SECONDS}
     * @throws IllegalArgumentException if the timeout is out of range
     * @throws DockerNotFoundException  if no such container exists
     * @throws DockerException          on failure
     */
    void stopContainer(String id, int timeoutSeconds) throws DockerException;

    /**
     * Restarts a container (stops it as {@link #stopContainer} does, then starts it).
     *
     * @param id             container ID or name
     * @param timeoutSeconds 0..{@value #MAX_STOP_TIMEOUT_SECONDS}
     * @throws IllegalArgumentException if the timeout is out of range
     * @throws DockerNotFoundException  if no such container exists
     * @throws DockerException          on failure
     */
    void restartContainer(String id, int timeoutSeconds) throws DockerException;

    /**
     * Renames a container.
     *
     * @param id      container ID or name
     * @param newName the new name
     * @throws DockerNotFoundException if no such container exists
     * @throws DockerConflictException if the new name is taken
     * @throws DockerException         on failure
     */
    void renameContainer(String id, String newName) throws DockerException;

    /**
     * Removes a container, running or not ({@code force=true}), and never its volumes
     * ({@code v=false}): host data stays.
     *
     * @param id container ID or name
     * @throws DockerNotFoundException if no such container exists
     * @throws DockerException         on failure
     */
    void removeContainer(String id) throws DockerException;

    /**
     * One-shot stats ({@code stream=false&one-shot=true}); see {@link ContainerStats} for how CPU
     * use is computed. A stopped container reports zeros.
     *
     * @param id container ID or name
     * @return the stats
     * @throws DockerNotFoundException if no such container exists
     * @throws DockerException         on failure
     */
    ContainerStats stats(String id) throws DockerException;

    /**
     * Lists every container, running or not, that carries the label {@code key=value}. For the
     * agent's own reconciliation only: never exposed as a route.
     *
     * @param key   label key
     * @param value label value
     * @return the matching containers
     * @throws IllegalArgumentException if the key or value is malformed
     * @throws DockerException          on failure
     */
    List<ContainerSummary> listContainersByLabel(String key, String value) throws DockerException;

    /**
     * Every host binding that a running container publishes, for port-conflict checks. Stopped
     * and created containers hold no port and are not counted. SCTP bindings are left out: they
     * can never conflict with a TCP or UDP binding.
     *
     * @return the bindings
     * @throws DockerException on failure
     */
    Set<HostPort> publishedHostPorts() throws DockerException;

    /**
     * Inspects a network.
     *
     * @param name network name or ID
     * @return the network, or empty if none exists
     * @throws IllegalArgumentException if {@code name} is malformed
     * @throws DockerException          on failure
     */
    Optional<NetworkInfo> inspectNetwork(String name) throws DockerException;

    /** Closes every pooled connection; later calls fail with {@link DockerUnavailableException}. */
    @Override
    void close();
}
