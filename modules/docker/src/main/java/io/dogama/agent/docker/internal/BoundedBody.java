package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.io.IOException;
import java.io.InputStream;

/** An answer's body as a stream for a JSON parser, at most {@code max} bytes, its failures kept as they are. */
final class BoundedBody extends InputStream {
    /** Carries a failure of the body, or the limit, through the parser. */
    static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;
        final transient DockerException cause;

        Failed(DockerException cause) {
            super(cause.getMessage());
            this.cause = cause;
        }
    }

    private final BodyReader body;
    private final long max;
    private final String overLimit;
    private long total;

    /**
     * @param body      the body
     * @param max       most bytes it may have
     * @param overLimit the protocol error's message when it has more
     */
    BoundedBody(BodyReader body, long max, String overLimit) {
        this.body = body;
        this.max = max;
        this.overLimit = overLimit;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] dst, int off, int len) throws IOException {
        int n;
        try {
            n = body.read(dst, off, len);
        } catch (DockerException e) {
            throw new Failed(e);
        }
        if (n > 0) {
            total += n;
            if (total > max) {
                throw new Failed(new DockerProtocolException(overLimit));
            }
        }
        return n;
    }
}
