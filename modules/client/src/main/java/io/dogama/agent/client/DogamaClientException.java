package io.dogama.agent.client;

/**
 * Base of every failure of a {@link DogamaClient} call. Messages start with {@code client:} and never
 * carry the secret, a signature or a body sent.
 */
public abstract sealed class DogamaClientException extends RuntimeException
        permits DogamaProblemException, DogamaTransportException, DogamaProtocolException {
    private static final long serialVersionUID = 1L;

    DogamaClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
