package io.dogama.agent.docker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dogama.agent.docker.DockerEngine;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz target of the Docker response parsers (response head, chunked and other
 * framings, the JSON tree, the views built from it, the pull stream, the streamed port listing), fed from a
 * fake engine on a real Unix socket that answers each call with the fuzzer's bytes and closes (docs/fuzzing.md).
 * Without {@code JAZZER_FUZZ=1} it runs once per committed input under
 * {@code EngineResponseFuzzTestInputs/responses/}.
 *
 * <p>The first input byte chooses the engine call, the rest is the engine's answer, verbatim.
 * Properties: the call returns a value or throws a {@link DockerException} (never another
 * exception), no exception message repeats engine text ({@link FakeEngine#MARKER}), and the same
 * answer always gives the same result.
 */
class EngineResponseFuzzTest {
    /**
     * HostileEngineTest's small limits, but with time bounds no answer here can reach: the fake writes
     * its whole answer and closes, so the client always meets the end of the bytes, never silence. A
     * read timeout of 300 ms made a fuzz run on a loaded machine (load average 12) report two results
     * for the same answer, a timeout and then the parser's verdict (input
     * {@code timeout-under-load-same-answer}).
     */
    static final DockerLimits LIMITS = new DockerLimits(Duration.ofSeconds(10), Duration.ofSeconds(20),
            Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofSeconds(30),
            HostileEngineTest.MAX_HEADER, HostileEngineTest.MAX_BODY, HostileEngineTest.MAX_LISTING, 256 * 1024, 4096,
            2, 4);

    @TempDir
    static Path dir;
    static FakeEngine fake;
    static DockerEngine engine;
    /** The answer the fake gives to the call being fuzzed. */
    static volatile byte[] answer = new byte[0];

    static Path socket;

    @BeforeAll
    static void start() throws Exception {
        socket = dir.resolve("engine.sock");
        fake = new FakeEngine(socket, (req, out, in) -> {
            out.write(answer);
            out.flush();
            return FakeEngine.After.CLOSE;
        });
        engine = DockerEngine.connect(socket, LIMITS);
    }

    @AfterAll
    static void stop() throws IOException {
        engine.close();
        fake.close();
    }

    @FuzzTest(maxDuration = "5m")
    void responses(byte[] data) {
        if (data.length == 0) {
            return;
        }
        int call = Math.floorMod(data[0], 8);
        answer = Arrays.copyOfRange(data, 1, data.length);
        // The fake engine is on a Unix socket of this test; Jazzer's SSRF detector would report its connections.
        SilentCloseable allowed = BugDetectors.allowNetworkConnections();
        try {
            String first = call(call);
            assertEquals(first, call(call), "the same engine answer gave two results");
        } catch (DockerException e) {
            throw new AssertionError("the fake engine's version answer was refused", e);
        } finally {
            allowed.close();
        }
    }

    /**
     * One call on a client without idle connections: the fake closes every connection after its
     * answer, and a client that kept one for reuse (the answer said keep-alive) would find it closed
     * and, by design, not send a POST twice; so that client is replaced.
     */
    private static String call(int call) throws DockerException {
        String result = callOnce(call);
        if (engine instanceof SocketDockerEngine s && s.transport().pool().idleCount() > 0) {
            engine.close();
            engine = DockerEngine.connect(socket, LIMITS);
        }
        return result;
    }

    private static String callOnce(int call) {
        try {
            Object value = switch (call) {
                case 0 -> engine.inspectContainer("dogama-demo-0001");
                case 1 -> engine.inspectImage("dogama/demo-http:1");
                case 2 -> {
                    engine.pullImage("dogama/demo-http:1");
                    yield "pulled";
                }
                case 3 -> engine.stats("0123456789ab");
                case 4 -> engine.listContainersByLabel("io.dogama.instance", "demo-0001");
                case 5 -> engine.publishedHostPorts();
                case 6 -> engine.inspectNetwork("dogama-games");
                default -> {
                    engine.stopContainer("0123456789ab", 5);
                    yield "stopped";
                }
            };
            return "ok " + value;
        } catch (DockerException e) {
            String message = String.valueOf(e.getMessage());
            assertFalse(message.contains(FakeEngine.MARKER), "engine text in an exception message: " + message);
            return e.getClass().getSimpleName() + " " + message;
        }
    }
}
