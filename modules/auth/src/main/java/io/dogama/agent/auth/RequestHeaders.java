package io.dogama.agent.auth;

import java.util.List;

/**
 * A read-only view of the request headers as received, for {@link Authenticator#verify}.
 */
@FunctionalInterface
public interface RequestHeaders {
    /**
     * Returns every value received under a header name, matched case-insensitively, one element per
     * header field line, in the order received, each value exactly as sent apart from the leading and
     * trailing whitespace HTTP strips. A comma inside a value must not split it.
     *
     * @param name header name, e.g. {@code X-DoGaMa-Nonce}
     * @return the values, empty if the header is absent; never null
     */
    List<String> all(String name);
}
