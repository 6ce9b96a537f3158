package io.dogama.agent.auth.internal;

/** What the nonce memory says about one nonce. */
public enum Admission {
    /** First use; the nonce is now remembered (and persisted, if the memory is durable). */
    ADMITTED,
    /** Already used inside its retention period. */
    REPLAYED,
    /** The memory holds its capacity of unexpired nonces; nothing was forgotten to make room. */
    FULL,
    /**
     * The request is timestamped before the memory began, so a use before then cannot be ruled out (or so
     * long ago that its nonce would already be forgotten).
     */
    BEFORE_MEMORY,
    /**
     * The nonce is remembered but was not on disk within the durable wait (or too many lines already wait
     * for the disk): the request must not be acted on; the agent is busy.
     */
    STALLED,
    /** The nonce could not be persisted; the request must not be acted on. */
    FAILED
}
