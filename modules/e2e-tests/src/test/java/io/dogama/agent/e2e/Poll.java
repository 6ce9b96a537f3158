package io.dogama.agent.e2e;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded polling of a condition nothing signals (a port that starts listening, a guard period that
 * ends): the condition is checked at once and then every {@code every}; the test fails with
 * {@code what} and the last failure once {@code bound} has passed.
 */
final class Poll {
    private Poll() {
    }

    /** One look at the condition: its value once it holds, empty while it does not. */
    @FunctionalInterface
    interface Check<T> {
        Optional<T> look() throws Exception;
    }

    static <T> T until(Duration bound, Duration every, String what, Check<T> check) {
        long deadline = System.nanoTime() + bound.toNanos();
        Exception last = null;
        while (true) {
            try {
                Optional<T> v = check.look();
                if (v.isPresent()) {
                    return v.get();
                }
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(what + " not within " + bound, last);
            }
            LockSupport.parkNanos(every.toNanos());
        }
    }
}
