package io.dogama.agent.docker.internal;

import io.dogama.agent.docker.DockerTimeoutException;
import java.time.Duration;

/**
 * The instant by which one whole request must be done; every socket read is bounded by the
 * smaller of the read timeout and what is left of this deadline.
 *
 * @param atNanos {@link System#nanoTime()} value of the deadline
 */
record Deadline(long atNanos) {

    static Deadline in(Duration d) {
        return new Deadline(System.nanoTime() + d.toNanos());
    }

    long remainingNanos() {
        return atNanos - System.nanoTime();
    }

    /**
     * @param silence the longest silence allowed on one read
     * @return a positive socket timeout in milliseconds
     * @throws DockerTimeoutException if the deadline has passed
     */
    int readTimeoutMillis(Duration silence) throws DockerTimeoutException {
        long left = remainingNanos();
        if (left <= 0) {
            throw new DockerTimeoutException("the engine did not answer within the request deadline");
        }
        long millis = Math.min(silence.toMillis(), Math.max(1, left / 1_000_000));
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, millis));
    }
}
