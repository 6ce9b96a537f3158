package io.dogama.agent.app.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How long each part of a start took, for the one start log line: an operator who finds a slow start
 * sees which part it was. Written by the start thread and the registry's, hence synchronized.
 */
final class Timings {
    private final long startNanos;
    private final List<String> parts = new ArrayList<>();

    Timings(long startNanos) {
        this.startNanos = startNanos;
    }

    /**
     * Records that {@code part} took from {@code sinceNanos} until now.
     *
     * @return now, the start of the next part
     */
    synchronized long took(String part, long sinceNanos) {
        long now = System.nanoTime();
        parts.add(part + " " + TimeUnit.NANOSECONDS.toMillis(now - sinceNanos));
        return now;
    }

    /** @return milliseconds since the start began (the config read included) */
    long sinceStart() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Override
    public synchronized String toString() {
        return String.join(", ", parts);
    }
}
