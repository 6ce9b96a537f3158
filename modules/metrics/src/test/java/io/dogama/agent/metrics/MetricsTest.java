package io.dogama.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The text exposition, byte for byte (promtool reads the agent's real output in the end-to-end tests). */
class MetricsTest {
    @Test
    void countersGaugesAndHistogramsInTheTextFormat() {
        Metrics m = Metrics.create();
        Metrics.Counter c = m.counter("x_requests_total", "Requests by route.\nSecond line \\ here.", "route", "status");
        c.inc("GET /v1/a\"b", "200");
        c.inc("GET /v1/a\"b", "200");
        c.inc("-", "401");
        m.gauge("x_up", "Up.", () -> 1);
        m.gauge("x_broken", "Fails.", () -> {
            throw new IllegalStateException("source gone");
        });
        Metrics.Histogram h = m.histogram("x_seconds", "Latency.", new double[] {0.1, 1}, "op");
        h.observe(0.05, "ping");
        h.observe(0.5, "ping");
        h.observe(7, "ping");
        assertEquals("""
                # HELP x_requests_total Requests by route.\\nSecond line \\\\ here.
                # TYPE x_requests_total counter
                x_requests_total{route="-",status="401"} 1
                x_requests_total{route="GET /v1/a\\"b",status="200"} 2
                # HELP x_up Up.
                # TYPE x_up gauge
                x_up 1
                # HELP x_seconds Latency.
                # TYPE x_seconds histogram
                x_seconds_bucket{op="ping",le="0.1"} 1
                x_seconds_bucket{op="ping",le="1"} 2
                x_seconds_bucket{op="ping",le="+Inf"} 3
                x_seconds_sum{op="ping"} 7.55
                x_seconds_count{op="ping"} 3
                """, m.scrape());
        assertEquals(2, c.value("GET /v1/a\"b", "200"));
        assertEquals(3, h.count("ping"));
    }

    /** A label value is text the exposition must keep on one line and inside its quotes, whatever it holds. */
    @Test
    void backslashesAndNewlinesInALabelValueAreEscaped() {
        Metrics m = Metrics.create();
        m.counter("x_total", "c", "v").inc("a\\b\nc");
        assertEquals("""
                # HELP x_total c
                # TYPE x_total counter
                x_total{v="a\\\\b\\nc"} 1
                """, m.scrape());
    }

    /** The exposition's own forms: whole numbers without a point, NaN, +Inf and -Inf, large values in E form. */
    @Test
    void numbersTakeTheExpositionsForms() {
        assertEquals("42", Metrics.number(42));
        assertEquals("-3", Metrics.number(-3));
        assertEquals("0.25", Metrics.number(0.25));
        assertEquals("NaN", Metrics.number(Double.NaN));
        assertEquals("+Inf", Metrics.number(Double.POSITIVE_INFINITY));
        assertEquals("-Inf", Metrics.number(Double.NEGATIVE_INFINITY));
        assertEquals("999999999999999", Metrics.number(999_999_999_999_999d));
        assertEquals("1.0E15", Metrics.number(1e15), "past a long's exact range of doubles, as Java writes it");
    }

    @Test
    void namesAndLabelsAreChecked() {
        Metrics m = Metrics.create();
        assertThrows(IllegalArgumentException.class, () -> m.counter("x_requests", "no _total"));
        assertThrows(IllegalArgumentException.class, () -> m.gauge("x-bad", "bad name", () -> 0));
        assertThrows(IllegalArgumentException.class, () -> m.histogram("x_h", "le is reserved", new double[] {1}, "le"));
        assertThrows(IllegalArgumentException.class, () -> m.histogram("x_h", "not increasing", new double[] {1, 1}));
        m.gauge("x_once", "once", () -> 0);
        assertThrows(IllegalArgumentException.class, () -> m.gauge("x_once", "twice", () -> 0));
        Metrics.Counter c = m.counter("x_total", "c", "a");
        assertThrows(IllegalArgumentException.class, () -> c.inc("1", "2"));
    }
}
