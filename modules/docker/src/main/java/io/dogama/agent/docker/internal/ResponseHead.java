package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerException;
import io.dogama.agent.docker.DockerProtocolException;
import java.time.Duration;
import java.util.Locale;

/**
 * The status line and the headers that matter for framing (RFC 9112 section 6), read within one
 * byte budget. The reason phrase and every other header are engine text and are dropped.
 *
 * @param status        HTTP status
 * @param framing       how the body is delimited
 * @param contentLength body length for {@link Framing#LENGTH}, else -1
 * @param keepAlive     whether the engine lets the connection be reused
 */
record ResponseHead(int status, Framing framing, long contentLength, boolean keepAlive) {

    /** Most digits of a Content-Length: 18 always fit a long. */
    static final int MAX_LENGTH_DIGITS = 18;

    /** How a response body is delimited. */
    enum Framing {
        /** No body (204, 304). */
        NONE,
        /** Content-Length bytes. */
        LENGTH,
        /** Chunked transfer coding. */
        CHUNKED,
        /** Until the engine closes the connection; never reusable. */
        UNTIL_CLOSE
    }

    /**
     * @param maxHeaderBytes budget for the status line and all headers, CRLFs included
     * @return the head, or null if the connection ended before any byte of a response
     * @throws DockerProtocolException on a malformed or oversized head
     */
    static ResponseHead read(Connection c, int maxHeaderBytes, Deadline deadline, Duration silence)
            throws DockerException {
        int budget = maxHeaderBytes;
        String statusLine = c.readLine(budget, deadline, silence);
        if (statusLine == null) {
            return null;
        }
        budget -= statusLine.length() + 2;
        if (statusLine.length() < 12 || !statusLine.startsWith("HTTP/1.")
                || (statusLine.charAt(7) != '1' && statusLine.charAt(7) != '0') || statusLine.charAt(8) != ' '
                || (statusLine.length() > 12 && statusLine.charAt(12) != ' ')) {
            throw new DockerProtocolException("malformed status line");
        }
        int status = 0;
        for (int i = 9; i < 12; i++) {
            char ch = statusLine.charAt(i);
            if (ch < '0' || ch > '9') {
                throw new DockerProtocolException("malformed status code");
            }
            status = status * 10 + (ch - '0');
        }
        if (status < 200 || status > 599) {
            // No request of this client asks for an interim (1xx) answer.
            throw new DockerProtocolException("unexpected status class");
        }
        boolean http10 = statusLine.charAt(7) == '0';
        long contentLength = -1;
        boolean chunked = false;
        boolean close = http10;
        while (true) {
            if (budget <= 0) {
                throw new DockerProtocolException("the response headers exceed their limit");
            }
            String h = c.readLine(budget, deadline, silence);
            if (h == null) {
                throw new DockerProtocolException("the engine closed the connection inside the headers");
            }
            budget -= h.length() + 2;
            if (h.isEmpty()) {
                break;
            }
            int colon = h.indexOf(':');
            if (colon <= 0 || !isToken(h, colon)) {
                throw new DockerProtocolException("malformed header line");
            }
            String name = h.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).strip();
            switch (name) {
                case "content-length" -> {
                    long n = parseLength(value);
                    if (contentLength >= 0 && contentLength != n) {
                        throw new DockerProtocolException("conflicting Content-Length headers");
                    }
                    contentLength = n;
                }
                case "transfer-encoding" -> {
                    if (chunked || !"chunked".equals(value.toLowerCase(Locale.ROOT))) {
                        throw new DockerProtocolException("unsupported transfer coding");
                    }
                    chunked = true;
                }
                case "connection" -> {
                    for (String token : value.split(",")) {
                        if ("close".equals(token.strip().toLowerCase(Locale.ROOT))) {
                            close = true;
                        }
                    }
                }
                default -> {
                    // every other header is engine text this client has no use for
                }
            }
        }
        if (status == 204 || status == 304) {
            return new ResponseHead(status, Framing.NONE, -1, !close);
        }
        if (chunked && contentLength >= 0) {
            // Both at once is how requests get smuggled (RFC 9112 section 6.3): refuse it.
            throw new DockerProtocolException("both Content-Length and chunked coding");
        }
        if (chunked) {
            return new ResponseHead(status, Framing.CHUNKED, -1, !close);
        }
        if (contentLength >= 0) {
            return new ResponseHead(status, Framing.LENGTH, contentLength, !close);
        }
        return new ResponseHead(status, Framing.UNTIL_CLOSE, -1, false);
    }

    private static boolean isToken(String h, int end) {
        for (int i = 0; i < end; i++) {
            char ch = h.charAt(i);
            boolean ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(ch) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static long parseLength(String v) throws DockerProtocolException {
        if (v.isEmpty() || v.length() > MAX_LENGTH_DIGITS) {
            throw new DockerProtocolException("malformed Content-Length");
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < '0' || ch > '9') {
                throw new DockerProtocolException("malformed Content-Length");
            }
            n = n * 10 + (ch - '0');
        }
        return n;
    }
}
