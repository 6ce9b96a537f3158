package io.dogama.agent.docker.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Protocol;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The host ports running containers publish, read from the engine's container listing as it arrives. The
 * listing names every running container on the host, the agent's own and anyone else's, with all their labels,
 * mounts and networks: about 2 KiB each, so a host with a few thousand running containers answers more than any
 * buffered body may be ({@link io.dogama.agent.docker.DockerLimits#maxBodyBytes()}), and every create would fail.
 * Streamed, only the published ports are kept; the listing as a whole is bounded by
 * {@link io.dogama.agent.docker.DockerLimits#maxListingBytes()}, each value the parser builds by {@link Tree#CONSTRAINTS}
 * (a value it skips is never built), and what is kept by {@link #MAX_BINDINGS} and {@link #MAX_IP_CHARS}. Field
 * names are not kept either: jackson's table of names would otherwise hold every distinct name of the listing, and
 * carry them into the next one.
 *
 * <p>From each container, {@code Ports}: an entry with a {@code PublicPort} is a host binding on {@code IP}
 * ({@code 0.0.0.0} when empty) for {@code Type} ({@code tcp} when absent); an entry without one, or for a
 * protocol the agent does not publish (SCTP), is skipped; a port outside 1..65535, a key of these given twice,
 * or a value of the wrong type is a protocol error.
 */
final class PortListing {
    private static final System.Logger LOG = System.getLogger(PortListing.class.getName());

    /** Most distinct host bindings a listing may hold: a port number for each protocol, twice over. */
    static final int MAX_BINDINGS = 4 * 65_535;
    /** Longest host address in a binding: the longest textual IPv6 address. */
    static final int MAX_IP_CHARS = 45;

    private PortListing() {
    }

    /**
     * Reads the listing to its end.
     *
     * @param body     the answer's body (status 200)
     * @param maxBytes most bytes the listing may have
     * @return the host bindings, in listing order
     * @throws DockerException {@link DockerProtocolException} if the listing is larger than {@code maxBytes}, is
     *                         not a JSON array of objects, or names a port out of range; the body's own failures
     */
    static Set<HostPort> read(BodyReader body, long maxBytes) throws DockerException {
        if (body.declaredLength() > maxBytes) {
            throw new DockerProtocolException("the container listing exceeds its limit");
        }
        BoundedBody in = new BoundedBody(body, maxBytes, "the container listing exceeds its limit");
        Set<HostPort> out = new LinkedHashSet<>();
        try (JsonParser p = Tree.FACTORY.createParser(in)) {
            expect(p.nextToken(), JsonToken.START_ARRAY, "the engine did not answer with a JSON array");
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                expect(t, JsonToken.START_OBJECT, "a JSON array holds a non-object");
                container(p, out);
            }
            if (p.nextToken() != null) {
                throw new DockerProtocolException("the engine answered with malformed JSON");
            }
        } catch (BoundedBody.Failed e) {
            throw e.cause;
        } catch (IOException | RuntimeException e) {
            // A RuntimeException too: the parser's own failures on hostile input must stay a protocol error.
            LOG.log(Level.DEBUG, "docker: unparseable container listing ({0})", e.getClass().getSimpleName());
            throw new DockerProtocolException("the engine answered with malformed JSON");
        }
        return out;
    }

    /** One container object, its start token read: its {@code Ports} into {@code out}, the rest skipped. */
    private static void container(JsonParser p, Set<HostPort> out) throws IOException, DockerException {
        boolean ports = false;
        while (p.nextToken() != JsonToken.END_OBJECT) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("Ports".equals(field)) {
                ports = once(ports, field);
            }
            if ("Ports".equals(field) && t == JsonToken.START_ARRAY) {
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    expect(t, JsonToken.START_OBJECT, "unexpected JSON type for Ports");
                    Optional<HostPort> binding = port(p);
                    if (binding.isPresent() && out.add(binding.get()) && out.size() > MAX_BINDINGS) {
                        throw new DockerProtocolException("the container listing holds too many host bindings");
                    }
                }
            } else if ("Ports".equals(field) && t != JsonToken.VALUE_NULL) {
                throw new DockerProtocolException("unexpected JSON type for Ports");
            } else {
                p.skipChildren();
            }
        }
    }

    /** One entry of {@code Ports}, its start token read. */
    private static Optional<HostPort> port(JsonParser p) throws IOException, DockerException {
        long publicPort = 0;
        String type = "tcp";
        String ip = "";
        boolean seenPort = false;
        boolean seenType = false;
        boolean seenIp = false;
        while (p.nextToken() != JsonToken.END_OBJECT) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "PublicPort" -> {
                    seenPort = once(seenPort, field);
                    publicPort = number(p, t, field);
                }
                case "Type" -> {
                    seenType = once(seenType, field);
                    type = text(p, t, field, "tcp");
                }
                case "IP" -> {
                    seenIp = once(seenIp, field);
                    ip = text(p, t, field, "");
                }
                default -> p.skipChildren();
            }
        }
        if (ip.length() > MAX_IP_CHARS) {
            throw new DockerProtocolException("unexpected JSON value for IP");
        }
        if (publicPort <= 0) {
            return Optional.empty();
        }
        if (publicPort > 65535) {
            throw new DockerProtocolException("port out of range");
        }
        Optional<Protocol> proto = Protocol.parse(type);
        if (proto.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new HostPort(ip.isEmpty() ? "0.0.0.0" : ip, (int) publicPort, proto.get()));
    }

    /** @return true; a protocol error if {@code seen} already (the old tree reader refused duplicate keys too) */
    private static boolean once(boolean seen, String field) throws DockerProtocolException {
        if (seen) {
            throw new DockerProtocolException("duplicate JSON field " + field);
        }
        return true;
    }

    private static long number(JsonParser p, JsonToken t, String field) throws IOException, DockerException {
        if (t == JsonToken.VALUE_NULL) {
            return 0;
        }
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new DockerProtocolException("unexpected JSON type for " + field);
        }
        return p.getLongValue();
    }

    private static String text(JsonParser p, JsonToken t, String field, String absent) throws IOException,
            DockerException {
        if (t == JsonToken.VALUE_NULL) {
            return absent;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new DockerProtocolException("unexpected JSON type for " + field);
        }
        return p.getText();
    }

    private static void expect(JsonToken got, JsonToken want, String message) throws DockerProtocolException {
        if (got != want) {
            throw new DockerProtocolException(message);
        }
    }
}
