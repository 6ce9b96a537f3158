package io.dogama.agent.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reproduced denial of service of issue 18 item 1, against the real agent with a smaller heap than
 * the image's own 96 MiB (-Xmx64m, what the compose deployment's 256 MiB limit gave it before the image
 * set its heap): unsigned clients declaring a 128 MiB chunk and sending 62 MiB of it.
 * Before the fix Helidon buffered each whole chunk; two such clients ended the listener with an
 * OutOfMemoryError while the process lived on. Now each gets 413 at the size line, and a signed request
 * is still answered afterwards.
 */
class SmallHeapE2ETest {
    /** Two thirds of the image's heap. */
    @RegisterExtension
    static final E2E e2e = new E2E(Map.of("JAVA_TOOL_OPTIONS", "-Xmx64m"));

    private static final int ATTACKERS = 4;
    private static final int SENT_BYTES = 62 * 1024 * 1024;
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

    @Test
    void hugeDeclaredChunksNeitherExhaustTheHeapNorEndTheListener() throws Exception {
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < ATTACKERS; i++) {
                answers.add(pool.submit(() -> attack(e2e.wire().port())));
            }
            for (Future<String> answer : answers) {
                String statusLine = answer.get(ANSWER_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
                assertTrue(statusLine.startsWith("HTTP/1.1 413"), "the attacker got: " + statusLine);
            }
        } finally {
            pool.shutdownNow();
        }
        Wire.Response health = e2e.wire().get("/v1/health");
        assertEquals(200, health.status(), health + "\n" + e2e.logTail());
        assertEquals(200, e2e.wire().get("/v1/instances").status());
        assertTrue(!e2e.logTail().contains("OutOfMemoryError"), e2e.logTail());
    }

    /** @return the status line the agent answered with, while the client was still sending */
    private static String attack(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout((int) ANSWER_TIMEOUT.toMillis());
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(("POST /v1/instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n8000000\r\n").getBytes(StandardCharsets.US_ASCII));
                    byte[] block = new byte[1024 * 1024];
                    for (int sent = 0; sent < SENT_BYTES; sent += block.length) {
                        out.write(block);
                    }
                } catch (IOException closedByTheAgent) {
                    // expected: the agent answers and closes long before 62 MiB are through
                }
            });
            try {
                return statusLine(s.getInputStream());
            } finally {
                writer.interrupt();
            }
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        return line.toString(StandardCharsets.ISO_8859_1).strip();
    }
}
