package io.dogama.agent.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * An answer as received by {@link DogamaClient#exchange}: nothing interpreted.
 *
 * @param status      HTTP status
 * @param contentType the Content-Type header, or empty
 * @param body        the body bytes
 */
public record RawResponse(int status, String contentType, byte[] body) {
    /** Copies the body. @throws NullPointerException if a component is null */
    public RawResponse {
        Objects.requireNonNull(contentType, "contentType");
        body = body.clone();
    }

    /** @return a copy of the body */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** @return the body as UTF-8 text */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawResponse r && r.status == status && r.contentType.equals(contentType)
                && Arrays.equals(r.body, body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, contentType, Arrays.hashCode(body));
    }

    @Override
    public String toString() {
        String t = text();
        return status + " " + contentType + " " + (t.length() <= 400 ? t : t.substring(0, 400) + "...");
    }
}
