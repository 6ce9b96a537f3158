package io.dogama.agent.client;

/**
 * No answer: the connection failed, was closed, or the request timed out; or the only answer was
 * {@code replayed_request} to a resend of the request (see {@link DogamaClient}, "Retries"). For a mutation the outcome
 * is UNKNOWN — the agent may have acted on it — so the client never resends it; inspect the instance
 * (or {@link DogamaClient#list()}) to learn what happened, then decide.
 */
public final class DogamaTransportException extends DogamaClientException {
    private static final long serialVersionUID = 1L;

    DogamaTransportException(String message, Throwable cause) {
        super(message, cause);
    }
}
