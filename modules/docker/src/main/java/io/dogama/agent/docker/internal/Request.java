package io.dogama.agent.docker.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One request, always built by this module.
 *
 * @param method HTTP method
 * @param target request target from {@link Target}
 * @param body      JSON body, or null
 * @param operation what the request does, for the metrics: method and path shape, never a reference
 */
record Request(Method method, String target, byte[] body, String operation) {
    /** Value of the Host header: the engine ignores it, HTTP/1.1 requires it. */
    static final String HOST = "docker";
    static final String USER_AGENT = "dogama-agent";

    /** The methods this client sends. */
    enum Method {
        /** Read. */
        GET,
        /** Act. */
        POST,
        /** Remove. */
        DELETE
    }

    Request(Method method, String target, byte[] body) {
        this(method, target, body, method.name());
    }

    Request {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(target, "target");
        for (int i = 0; i < target.length(); i++) {
            char ch = target.charAt(i);
            // Defence in depth: Target never builds these, so a request is never split or smuggled.
            if (ch <= ' ' || ch >= 0x7f) {
                throw new IllegalArgumentException("docker: request target not plain ASCII");
            }
        }
        if (target.isEmpty() || target.charAt(0) != '/') {
            throw new IllegalArgumentException("docker: request target not absolute");
        }
    }

    static Request get(Target t) {
        return new Request(Method.GET, t.build(), null, "GET " + t.shape());
    }

    static Request post(Target t) {
        return new Request(Method.POST, t.build(), null, "POST " + t.shape());
    }

    static Request post(Target t, byte[] json) {
        return new Request(Method.POST, t.build(), json, "POST " + t.shape());
    }

    static Request delete(Target t) {
        return new Request(Method.DELETE, t.build(), null, "DELETE " + t.shape());
    }

    /** A GET changes nothing, so it may be sent again on a fresh connection. */
    boolean idempotent() {
        return method == Method.GET;
    }

    byte[] encode() {
        StringBuilder h = new StringBuilder(160).append(method.name()).append(' ').append(target)
                .append(" HTTP/1.1\r\nHost: ").append(HOST).append("\r\nUser-Agent: ").append(USER_AGENT)
                .append("\r\nAccept: application/json\r\n");
        if (body != null) {
            h.append("Content-Type: application/json\r\n");
        }
        if (method != Method.GET) {
            h.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n");
        }
        h.append("\r\n");
        byte[] head = h.toString().getBytes(StandardCharsets.US_ASCII);
        if (body == null) {
            return head;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(head.length + body.length);
        out.writeBytes(head);
        out.writeBytes(body);
        return out.toByteArray();
    }
}
