package io.dogama.agent.client;

/**
 * The answer was not what SPEC section 2 promises for the route (another status, media type or body
 * shape): a different server, a proxy in between, or an agent of another version.
 */
public final class DogamaProtocolException extends DogamaClientException {
    private static final long serialVersionUID = 1L;

    DogamaProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
