package io.dogama.agent.docker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dogama.agent.core.HostPort;
import io.dogama.agent.core.Protocol;
import com.fasterxml.jackson.core.JsonFactory;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerLimits;
import io.dogama.agent.docker.DockerProtocolException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The listing of the running containers, read for the host ports they publish ({@link PortListing}), from a fake
 * engine on a real Unix socket with {@link HostileEngineTest}'s small limits: a buffered body of at most
 * {@value HostileEngineTest#MAX_BODY} bytes, a listing of at most {@value HostileEngineTest#MAX_LISTING}.
 */
class PortListingTest {
    @TempDir
    Path dir;
    /** The listing the fake answers with. */
    private volatile String listing = "[]";
    private FakeEngine fake;
    private DockerEngine engine;

    /** Whether the fake sends the listing chunked (no length up front), as the engine does for a long one. */
    private volatile boolean chunked;

    private void start() throws Exception {
        Path socket = dir.resolve("engine.sock");
        fake = new FakeEngine(socket, (r, out, in) -> chunked ? chunked(out, listing) : FakeEngine.json(out, 200, listing));
        engine = DockerEngine.connect(socket, HostileEngineTest.SMALL);
    }

    private static FakeEngine.After chunked(OutputStream out, String json) throws IOException {
        out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        for (int off = 0; off < b.length; off += 8192) {
            int n = Math.min(8192, b.length - off);
            out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(b, off, n);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return FakeEngine.After.KEEP;
    }

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (fake != null) {
            fake.close();
        }
    }

    /** A running container as the engine lists it, its labels padded to about {@code labelBytes}. */
    private static String container(int i, int hostPort, int labelBytes) {
        return """
                {"Id":"%064x","Names":["/c-%d"],"Image":"demo","Command":"serve","Created":1,
                 "Ports":[{"IP":"127.0.0.1","PrivatePort":8080,"PublicPort":%d,"Type":"tcp"},{"PrivatePort":9090,"Type":"tcp"}],
                 "Labels":{"note":"%s"},"State":"running","Status":"Up 1 second",
                 "HostConfig":{"NetworkMode":"default"},"NetworkSettings":{"Networks":{"bridge":{"IPAddress":"172.17.0.2"}}},
                 "Mounts":[{"Type":"bind","Source":"/srv/c","Destination":"/data","RW":true}]}
                """.formatted(i, i, hostPort, "x".repeat(labelBytes));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aListingLargerThanAnyBufferedAnswerIsReadForItsPorts(boolean chunkedAnswer) throws Exception {
        chunked = chunkedAnswer;
        // Before: the listing was buffered whole, so a host with this many running containers (for the real
        // limits, a few thousand) failed every create with "the response body exceeds its limit".
        int n = 150;
        StringBuilder b = new StringBuilder("[");
        Set<HostPort> expected = new HashSet<>();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(container(i, 20000 + i, 1000));
            expected.add(new HostPort("127.0.0.1", 20000 + i, Protocol.TCP));
        }
        listing = b.append(']').toString();
        assertFalse(listing.length() <= HostileEngineTest.MAX_BODY, "the listing must be over the buffered limit");
        start();

        assertEquals(expected, engine.publishedHostPorts());
        assertEquals(expected, engine.publishedHostPorts(), "a second listing");
        assertEquals(1, fake.receivedOn("/containers/json").stream().map(FakeEngine.Received::connection)
                .distinct().count(), "the first listing was read to its end and its connection reused");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aListingOverItsOwnLimitIsRefused(boolean chunkedAnswer) throws Exception {
        chunked = chunkedAnswer;
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; b.length() <= HostileEngineTest.MAX_LISTING; i++) {
            b.append(i == 0 ? "" : ",").append(container(i, 20000 + i % 1000, 1000).replace("x", FakeEngine.MARKER));
        }
        listing = b.append(']').toString();
        start();

        DockerProtocolException e = assertThrows(DockerProtocolException.class, () -> engine.publishedHostPorts());
        assertEquals("docker: the container listing exceeds its limit", e.getMessage());
    }

    @Test
    void portsAreTakenAsTheEngineStatesThem() throws Exception {
        listing = """
                [{"Ports":[{"PrivatePort":80,"Type":"tcp"},
                  {"IP":"0.0.0.0","PrivatePort":80,"PublicPort":20080,"Type":"tcp"},
                  {"IP":"::","PrivatePort":80,"PublicPort":20080,"Type":"tcp"},
                  {"PrivatePort":53,"PublicPort":20053,"Type":"udp"},
                  {"IP":"0.0.0.0","PrivatePort":9,"PublicPort":20009,"Type":"sctp"}]},
                 {"Ports":null},{"Names":["/no-ports"]},
                 {"Ports":[{"IP":null,"PublicPort":20081,"Type":null,"Extra":{"deep":[1,2,{"x":null}]}},
                  {"IP":"","PublicPort":20082}]}]
                """;
        start();

        assertEquals(Set.of(new HostPort("0.0.0.0", 20080, Protocol.TCP), new HostPort("::", 20080, Protocol.TCP),
                new HostPort("0.0.0.0", 20053, Protocol.UDP), new HostPort("0.0.0.0", 20081, Protocol.TCP),
                new HostPort("0.0.0.0", 20082, Protocol.TCP)), engine.publishedHostPorts());
    }

    @Test
    void aListingWithMoreHostBindingsThanAnyHostHasIsRefused() throws Exception {
        // Each binding kept costs the heap about 120 bytes; a listing of tiny entries must not fill it.
        StringBuilder b = new StringBuilder("[{\"Ports\":[");
        for (int i = 0; i <= PortListing.MAX_BINDINGS; i++) {
            b.append(i == 0 ? "" : ",").append("{\"PublicPort\":").append(1 + i % 65_535).append(",\"IP\":\"")
                    .append(i / 65_535).append("\"}");
        }
        listing = b.append("]}]").toString();
        Path socket = dir.resolve("roomy.sock");
        fake = new FakeEngine(socket, (r, out, in) -> FakeEngine.json(out, 200, listing));
        engine = DockerEngine.connect(socket, new DockerLimits(Duration.ofSeconds(2), Duration.ofSeconds(20),
                Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2),
                HostileEngineTest.MAX_HEADER, HostileEngineTest.MAX_BODY, 32L * 1024 * 1024, 256 * 1024, 4096, 2, 4));

        DockerProtocolException e = assertThrows(DockerProtocolException.class, () -> engine.publishedHostPorts());
        assertEquals("docker: the container listing holds too many host bindings", e.getMessage());
    }

    @Test
    void theParserKeepsNoFieldNames() {
        // Its table of names would hold every distinct name of a listing, and keep them for the next one.
        assertFalse(Tree.FACTORY.isEnabled(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES));
        assertFalse(Tree.FACTORY.isEnabled(JsonFactory.Feature.INTERN_FIELD_NAMES));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"EVIL-MARKER\":[]}",
        "[1]",
        "[{\"Ports\":{\"EVIL-MARKER\":1}}]",
        "[{\"Ports\":[1]}]",
        "[{\"Ports\":[{\"PublicPort\":70000}]}]",
        "[{\"Ports\":[{\"PublicPort\":\"80\"}]}]",
        "[{\"Ports\":[{\"PublicPort\":123456789012345678901234567890}]}]",
        "[{\"Ports\":[{\"PublicPort\":80,\"IP\":7}]}]",
        "[{\"Ports\":[{\"PublicPort\":80,\"Type\":[\"EVIL-MARKER\"]}]}]",
        "[{\"Ports\":[{\"PublicPort\":80}]}",
        "[{\"Ports\":[]}] [\"EVIL-MARKER\"]",
        "[{\"EVIL-MARKER\":\"unterminated",
        "[{\"Ports\":[{\"PublicPort\":8080,\"PublicPort\":null}]}]",
        "[{\"Ports\":[{\"PublicPort\":8080,\"IP\":\"127.0.0.1\",\"IP\":\"EVIL-MARKER\"}]}]",
        "[{\"Ports\":[{\"PublicPort\":8080}],\"Ports\":[]}]",
        "[{\"Ports\":[{\"PublicPort\":8080,\"IP\":\"0000:0000:0000:0000:0000:0000:0000:0000:EVIL-MARKER\"}]}]",
        "",
    })
    void aMalformedListingIsAProtocolErrorWithoutEngineText(String answer) throws Exception {
        listing = answer;
        start();

        DockerProtocolException e = assertThrows(DockerProtocolException.class, () -> engine.publishedHostPorts());
        assertFalse(e.getMessage().contains(FakeEngine.MARKER), e.getMessage());
    }
}
