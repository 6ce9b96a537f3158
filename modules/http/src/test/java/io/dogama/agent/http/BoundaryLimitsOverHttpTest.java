package io.dogama.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.dogama.agent.auth.NonceStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract's numbers at their boundaries, written as literals on purpose: the body limit of SPEC
 * section 3 (64 KiB), check-disk's 16 paths and check-ports' 64 bindings (SPEC section 2). A change of a
 * constant in the code is a change of the contract and must fail here, which a test reading the constant
 * cannot. Also: a request whose framing is ambiguous is refused and its connection ended, so that no byte
 * after it can be taken as a request.
 */
class BoundaryLimitsOverHttpTest {
    /** How long the agent may take to end a connection it said it would close; far below its idle sweep. */
    private static final int CLOSE_WAIT_MILLIS = 5_000;

    @TempDir
    Path dir;

    /** A JSON object of exactly {@code n} bytes that the fake's create takes. */
    private static String jsonOfSize(int n) {
        String head = "{\"instanceId\":\"mc-0001\",\"pad\":\"";
        String tail = "\"}";
        String json = head + "x".repeat(n - head.length() - tail.length()) + tail;
        assertEquals(n, json.getBytes(StandardCharsets.UTF_8).length);
        return json;
    }

    private static void assertProblem(RawHttp.Response r, int status, String code) throws IOException {
        assertEquals(status, r.status(), r.text());
        assertEquals("application/problem+json", r.header("Content-Type"));
        assertEquals(code, r.code());
    }

    /** Signed request head with a Content-Length of its own, and without Connection: close. */
    private static String head(ServerFixture f, String method, String path, String body, String... more) {
        StringBuilder b = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        f.signedHeaders(method, path, body).forEach(h -> b.append(h).append("\r\n"));
        for (String h : more) {
            b.append(h).append("\r\n");
        }
        return b.append("\r\n").toString();
    }

    // --- body size (SPEC 3: at most 64 KiB) ---

    /** Pins the limit Helidon is given (Listener: maxPayloadSize) and the gate's own (RequestGate.readBody). */
    @Test
    void aSignedBodyOf65536BytesIsTakenWhole() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            RawHttp.Response r = f.send("POST", "/v1/instances", jsonOfSize(65536));
            assertEquals(201, r.status(), r.text());
            assertEquals(65536, f.ops.bodies.getFirst().length);
        }
    }

    /** Pins Helidon's refusal of a Content-Length past maxPayloadSize, before the body is read or authenticated. */
    @Test
    void aSignedBodyOf65537BytesIs413() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir); Socket s = RawHttp.connect(f.port)) {
            // The head only: the answer must not wait for the body (and a body left unread could reset the
            // connection before the answer is read).
            s.getOutputStream().write(head(f, "POST", "/v1/instances", jsonOfSize(65537),
                    "Content-Type: application/json", "Content-Length: 65537").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 413, "body_too_large");
            assertEquals("close", r.header("Connection"));
            assertEquals(List.of(), f.ops.calls);
        }
    }

    /**
     * A chunked body is measured across chunks (StrictChunkReader, RequestGate.readBody): 65536 bytes in one
     * chunk are taken, one more chunk of a single byte is 413 from its size line.
     */
    @Test
    void aChunkedBodyIsRefusedAtItsByte65537() throws Exception {
        byte[] full = jsonOfSize(65536).getBytes(StandardCharsets.UTF_8);
        try (ServerFixture f = ServerFixture.start(dir)) {
            String path = "/v1/instances";
            try (Socket s = RawHttp.connect(f.port)) {
                OutputStream out = s.getOutputStream();
                out.write(head(f, "POST", path, new String(full, StandardCharsets.UTF_8),
                        "Content-Type: application/json", "Transfer-Encoding: chunked", "Connection: close")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write("10000\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(full);
                out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                RawHttp.Response r = RawHttp.read(s.getInputStream());
                assertEquals(201, r.status(), r.text());
            }
            assertEquals(65536, f.ops.bodies.getFirst().length);
            try (Socket s = RawHttp.connect(f.port)) {
                OutputStream out = s.getOutputStream();
                out.write(head(f, "POST", path, new String(full, StandardCharsets.UTF_8) + "x",
                        "Content-Type: application/json", "Transfer-Encoding: chunked")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write("10000\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(full);
                // The size line of the byte past the limit, never the byte: refused from the size alone.
                out.write("\r\n1\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                RawHttp.Response r = RawHttp.read(s.getInputStream());
                assertProblem(r, 413, "body_too_large");
                assertEquals("close", r.header("Connection"));
            }
            assertEquals(List.of("create"), f.ops.calls, "the body past the limit reached an operation");
        }
    }

    // --- list sizes (SPEC 2: check-disk 1 to 16 paths, check-ports 1 to 64 bindings) ---

    private static String diskBody(int n) {
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            paths.add("\"/srv/dogama/instances/p" + i + "/data\"");
        }
        return "{\"paths\":[" + String.join(",", paths) + "]}";
    }

    private static String portsBody(int n) {
        List<String> bindings = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            bindings.add("{\"hostIp\":\"127.0.0.1\",\"hostPort\":" + (20000 + i) + ",\"protocol\":\"tcp\"}");
        }
        return "{\"bindings\":[" + String.join(",", bindings) + "]}";
    }

    /** Pins Bodies.diskPaths' maximum (MAX_DISK_PATHS): 16 reach the operation, 17 are malformed and do not. */
    @Test
    void checkDiskTakes16PathsAndRefuses17() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            RawHttp.Response ok = f.send("POST", "/v1/check-disk", diskBody(16));
            assertEquals(200, ok.status(), ok.text());
            assertEquals(16, ((List<?>) ok.json().get("paths")).size());
            assertProblem(f.send("POST", "/v1/check-disk", diskBody(17)), 400, "malformed_request");
            assertEquals(1, f.ops.calls.size(), "17 paths reached the operation: " + f.ops.calls);
        }
    }

    /** Pins Bodies.portBindings' maximum (MAX_PORT_BINDINGS): 64 reach the operation, 65 are malformed and do not. */
    @Test
    void checkPortsTakes64BindingsAndRefuses65() throws Exception {
        try (ServerFixture f = ServerFixture.start(dir)) {
            RawHttp.Response ok = f.send("POST", "/v1/check-ports", portsBody(64));
            assertEquals(200, ok.status(), ok.text());
            assertEquals(64, ((List<?>) ok.json().get("bindings")).size());
            assertProblem(f.send("POST", "/v1/check-ports", portsBody(65)), 400, "malformed_request");
            assertEquals(1, f.ops.calls.size(), "65 bindings reached the operation: " + f.ops.calls);
        }
    }

    // --- ambiguous framing: 400, Connection: close, and the connection ends ---

    /**
     * A server whose idle sweep (the request timeout, 120 s) is far beyond {@link #CLOSE_WAIT_MILLIS}: an end of
     * stream within that wait is the answer's own close, not the sweep.
     */
    private ServerFixture patientServer() throws Exception {
        TestClock clock = new TestClock(ServerFixture.VECTOR_TIME);
        return ServerFixture.start(dir, clock, NonceStore.inMemory(100, clock), Signing.SECRET_LINE,
                ServerFixture.limits().withRequestTimeout(Duration.ofSeconds(120)));
    }

    /**
     * Sends {@code request} (which never asks for the connection to close), expects 400 malformed_request saying
     * {@code Connection: close}, then the end of the stream with nothing more.
     */
    private static void assertRefusedAndClosed(int port, String request) throws Exception {
        try (Socket s = RawHttp.connect(port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertProblem(r, 400, "malformed_request");
            assertEquals("close", r.header("Connection"), request);
            s.setSoTimeout(CLOSE_WAIT_MILLIS);
            ByteArrayOutputStream after = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            try {
                int c;
                while ((c = in.read()) != -1) {
                    after.write(c);
                }
            } catch (SocketTimeoutException e) {
                fail("the connection was still open " + CLOSE_WAIT_MILLIS + " ms after its 400: " + request);
            } catch (SocketException reset) {
                // A reset ends the connection too.
            }
            assertEquals("", after.toString(StandardCharsets.ISO_8859_1), "bytes after the 400: " + request);
        }
    }

    /**
     * Pins Helidon's refusal of more than one Content-Length (Http1Connection.route: Headers.contentLength takes
     * exactly one value and no list) and the gate's own check behind it (RequestGate.process, step 1), with the
     * close that ends the connection after the answer (ProblemDirectHandler, Reply.closing).
     */
    @Test
    void twoContentLengthsAre400AndEndTheConnection() throws Exception {
        try (ServerFixture f = patientServer()) {
            for (String lengths : List.of("Content-Length: 2\r\nContent-Length: 3", "Content-Length: 2, 3",
                    "Content-Length: 3\r\nContent-Length: 2")) {
                // Signed over either body: neither length may be taken. No body is sent: the head decides.
                assertRefusedAndClosed(f.port, head(f, "POST", "/v1/check-disk", "{}", "Content-Type: application/json",
                        lengths));
            }
            assertEquals(List.of(), f.ops.calls);
        }
    }

    /** Pins the refusal of both framings at once (Helidon's validateRequestTransferEncoding; RequestGate step 1). */
    @Test
    void contentLengthWithChunkedIs400AndEndsTheConnection() throws Exception {
        try (ServerFixture f = patientServer()) {
            for (String framing : List.of("Content-Length: 5\r\nTransfer-Encoding: chunked",
                    "Transfer-Encoding: chunked\r\nContent-Length: 5")) {
                assertRefusedAndClosed(f.port, head(f, "POST", "/v1/check-disk", "{}", "Content-Type: application/json",
                        framing));
            }
            assertEquals(List.of(), f.ops.calls);
        }
    }

    /** The close above is the refusal's: the same server keeps a connection open after an answer that is not. */
    @Test
    void aSignedAnswerThatIsNotARefusalKeepsTheConnection() throws Exception {
        try (ServerFixture f = patientServer(); Socket s = RawHttp.connect(f.port)) {
            s.getOutputStream().write(head(f, "GET", "/v1/health", "").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            RawHttp.Response r = RawHttp.read(s.getInputStream());
            assertEquals(200, r.status(), r.text());
            s.getOutputStream().write(head(f, "GET", "/v1/health", "").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            assertEquals(200, RawHttp.read(s.getInputStream()).status(), "the connection did not stay open");
            assertEquals(List.of("health", "health"), f.ops.calls);
        }
    }
}
