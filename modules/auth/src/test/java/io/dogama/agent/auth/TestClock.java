package io.dogama.agent.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand (public for the tests of the internal package). */
public final class TestClock extends Clock {
    private volatile Instant now;

    public TestClock(Instant start) {
        this.now = start;
    }

    public static TestClock at(String instant) {
        return new TestClock(Instant.parse(instant));
    }

    public void set(Instant instant) {
        now = instant;
    }

    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
