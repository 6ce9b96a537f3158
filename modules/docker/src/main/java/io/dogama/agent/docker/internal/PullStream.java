package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerApiException;
import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.lang.System.Logger.Level;
import java.util.Arrays;

/**
 * Reads a pull progress stream (one JSON object per line) to its end, bounded in total and per
 * message, and fails if any message reports an error. Progress itself is not kept.
 */
final class PullStream {
    private static final System.Logger LOG = System.getLogger(PullStream.class.getName());

    private final BodyReader body;
    private final long maxTotal;
    private final int maxMessage;

    PullStream(BodyReader body, long maxTotal, int maxMessage) {
        this.body = body;
        this.maxTotal = maxTotal;
        this.maxMessage = maxMessage;
    }

    void consume() throws DockerException {
        byte[] chunk = new byte[8192];
        byte[] line = new byte[1024];
        int lineLen = 0;
        long total = 0;
        int messages = 0;
        while (true) {
            int n = body.read(chunk, 0, chunk.length);
            if (n < 0) {
                break;
            }
            total += n;
            if (total > maxTotal) {
                throw new DockerProtocolException("pull image: the progress stream exceeds its limit");
            }
            for (int i = 0; i < n; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    messages += message(line, lineLen);
                    lineLen = 0;
                    continue;
                }
                if (lineLen == maxMessage) {
                    throw new DockerProtocolException("pull image: a progress message exceeds its limit");
                }
                if (lineLen == line.length) {
                    line = Arrays.copyOf(line, Math.min(maxMessage, line.length * 2));
                }
                line[lineLen++] = b;
            }
        }
        messages += message(line, lineLen);
        if (messages == 0) {
            throw new DockerProtocolException("pull image: the progress stream is empty");
        }
        LOG.log(Level.DEBUG, "docker: pull finished after {0} progress messages", messages);
    }

    /** @return 1 if the line held a message, 0 if it was blank */
    private static int message(byte[] line, int len) throws DockerException {
        int start = 0;
        int end = len;
        while (start < end && isSpace(line[start])) {
            start++;
        }
        while (end > start && isSpace(line[end - 1])) {
            end--;
        }
        if (start == end) {
            return 0;
        }
        Tree t = Tree.parse(Arrays.copyOfRange(line, start, end));
        if (t.has("error") || t.has("errorDetail")) {
            // The engine's error text stays here: it may name registry hosts or paths.
            LOG.log(Level.DEBUG, "docker: pull progress reported an error");
            throw new DockerApiException("pull image: the engine reported an error while pulling", 200);
        }
        return 1;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\r' || b == '\t';
    }
}
