package io.dogama.agent.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

/**
 * A registry of metric families and their text exposition (Prometheus format 0.0.4, the one
 * {@code promtool check metrics} reads). Families are registered once at start-up; label values
 * come from closed vocabularies of the agent (route patterns, problem codes, operation names), never
 * from a request, so that the number of series stays bounded. Thread-safe; recording is lock-free.
 */
public final class Metrics {
    /** The media type of {@link #scrape()}. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4";
    /** Latency buckets in seconds, from a fast registry read to a slow image pull. */
    public static final double[] LATENCY_BUCKETS = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

    private static final Pattern NAME = Pattern.compile("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
    private static final Pattern LABEL = Pattern.compile("^[a-zA-Z_][a-zA-Z0-9_]*$");

    private final Map<String, Family> families = new LinkedHashMap<>();

    private Metrics() {
    }

    /** @return an empty registry */
    public static Metrics create() {
        return new Metrics();
    }

    private sealed interface Family permits Counter, Histogram, Gauge, CounterFunction {
        String name();

        String help();

        String type();

        void samples(StringBuilder out);
    }

    private synchronized <F extends Family> F register(F family) {
        if (families.putIfAbsent(family.name(), family) != null) {
            throw new IllegalArgumentException("metrics: " + family.name() + " is registered twice");
        }
        return family;
    }

    private static String name(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("metrics: bad metric name " + name);
        }
        return name;
    }

    private static List<String> labels(String... names) {
        for (String n : names) {
            if (!LABEL.matcher(n).matches() || n.startsWith("__") || n.equals("le")) {
                throw new IllegalArgumentException("metrics: bad label name " + n);
            }
        }
        return List.of(names);
    }

    /**
     * @param name       metric name, ending in {@code _total}
     * @param help       one line of help
     * @param labelNames label names
     * @return the counter
     */
    public Counter counter(String name, String help, String... labelNames) {
        if (!name.endsWith("_total")) {
            throw new IllegalArgumentException("metrics: a counter's name ends in _total");
        }
        return register(new Counter(name(name), Objects.requireNonNull(help), labels(labelNames)));
    }

    /**
     * A counter whose value another part keeps (e.g. the audit log's error count).
     *
     * @param name  metric name, ending in {@code _total}
     * @param help  one line of help
     * @param value read at each scrape; must never decrease
     */
    public void counter(String name, String help, DoubleSupplier value) {
        if (!name.endsWith("_total")) {
            throw new IllegalArgumentException("metrics: a counter's name ends in _total");
        }
        register(new CounterFunction(name(name), Objects.requireNonNull(help), Objects.requireNonNull(value)));
    }

    /**
     * @param name  metric name
     * @param help  one line of help
     * @param value read at each scrape
     */
    public void gauge(String name, String help, DoubleSupplier value) {
        register(new Gauge(name(name), Objects.requireNonNull(help), Objects.requireNonNull(value)));
    }

    /**
     * @param name       metric name, usually ending in {@code _seconds}
     * @param help       one line of help
     * @param buckets    upper bounds, strictly increasing ({@code +Inf} is added)
     * @param labelNames label names
     * @return the histogram
     */
    public Histogram histogram(String name, String help, double[] buckets, String... labelNames) {
        double[] b = buckets.clone();
        for (int i = 1; i < b.length; i++) {
            if (!(b[i] > b[i - 1])) {
                throw new IllegalArgumentException("metrics: buckets must increase");
            }
        }
        return register(new Histogram(name(name), Objects.requireNonNull(help), labels(labelNames), b));
    }

    /** @return every family in the text format, in registration order; a failing gauge is left out, not fatal */
    public String scrape() {
        List<Family> list;
        synchronized (this) {
            list = new ArrayList<>(families.values());
        }
        StringBuilder out = new StringBuilder(8192);
        for (Family f : list) {
            StringBuilder samples = new StringBuilder();
            try {
                f.samples(samples);
            } catch (RuntimeException e) {
                continue; // a gauge whose source failed: no sample rather than no scrape
            }
            out.append("# HELP ").append(f.name()).append(' ').append(escapeHelp(f.help())).append('\n');
            out.append("# TYPE ").append(f.name()).append(' ').append(f.type()).append('\n');
            out.append(samples);
        }
        return out.toString();
    }

    private static String escapeHelp(String s) {
        return s.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static void labelSet(StringBuilder out, List<String> names, List<String> values, String extraName,
            String extraValue) {
        if (names.isEmpty() && extraName == null) {
            return;
        }
        out.append('{');
        for (int i = 0; i < names.size(); i++) {
            out.append(i == 0 ? "" : ",").append(names.get(i)).append("=\"");
            String v = values.get(i);
            for (int j = 0; j < v.length(); j++) {
                char c = v.charAt(j);
                switch (c) {
                    case '\\' -> out.append("\\\\");
                    case '"' -> out.append("\\\"");
                    case '\n' -> out.append("\\n");
                    default -> out.append(c);
                }
            }
            out.append('"');
        }
        if (extraName != null) {
            out.append(names.isEmpty() ? "" : ",").append(extraName).append("=\"").append(extraValue).append('"');
        }
        out.append('}');
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    private static List<String> key(List<String> names, String[] values) {
        if (values.length != names.size()) {
            throw new IllegalArgumentException("metrics: expected " + names.size() + " label values");
        }
        for (String v : values) {
            Objects.requireNonNull(v, "label value");
        }
        return List.of(values);
    }

    private static <V> List<Map.Entry<List<String>, V>> sorted(Map<List<String>, V> children) {
        List<Map.Entry<List<String>, V>> entries = new ArrayList<>(children.entrySet());
        entries.sort((a, b) -> String.join("\u0000", a.getKey()).compareTo(String.join("\u0000", b.getKey())));
        return entries;
    }

    /** A monotonic count per label set. */
    public static final class Counter implements Family {
        private final String name;
        private final String help;
        private final List<String> labelNames;
        private final Map<List<String>, LongAdder> children = new ConcurrentHashMap<>();

        private Counter(String name, String help, List<String> labelNames) {
            this.name = name;
            this.help = help;
            this.labelNames = labelNames;
        }

        /** @param labelValues one value per label name, in order */
        public void inc(String... labelValues) {
            children.computeIfAbsent(key(labelNames, labelValues), k -> new LongAdder()).increment();
        }

        /** @param labelValues one value per label name @return the current count (0 if never incremented) */
        public long value(String... labelValues) {
            LongAdder a = children.get(key(labelNames, labelValues));
            return a == null ? 0 : a.sum();
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String help() {
            return help;
        }

        @Override
        public String type() {
            return "counter";
        }

        @Override
        public void samples(StringBuilder out) {
            for (Map.Entry<List<String>, LongAdder> e : sorted(children)) {
                out.append(name);
                labelSet(out, labelNames, e.getKey(), null, null);
                out.append(' ').append(e.getValue().sum()).append('\n');
            }
        }
    }

    /** Counts of observations per bucket, their sum and count, per label set. */
    public static final class Histogram implements Family {
        private final String name;
        private final String help;
        private final List<String> labelNames;
        private final double[] bounds;
        private final Map<List<String>, Child> children = new ConcurrentHashMap<>();

        private record Child(LongAdder[] buckets, DoubleAdder sum, LongAdder count) {
        }

        private Histogram(String name, String help, List<String> labelNames, double[] bounds) {
            this.name = name;
            this.help = help;
            this.labelNames = labelNames;
            this.bounds = bounds;
        }

        /**
         * @param value       the observation (seconds, for a latency)
         * @param labelValues one value per label name
         */
        public void observe(double value, String... labelValues) {
            Child c = children.computeIfAbsent(key(labelNames, labelValues), k -> {
                LongAdder[] b = new LongAdder[bounds.length + 1];
                Arrays.setAll(b, i -> new LongAdder());
                return new Child(b, new DoubleAdder(), new LongAdder());
            });
            int i = 0;
            while (i < bounds.length && value > bounds[i]) {
                i++;
            }
            c.buckets()[i].increment();
            c.sum().add(value);
            c.count().increment();
        }

        /** @param labelValues one value per label name @return observations so far */
        public long count(String... labelValues) {
            Child c = children.get(key(labelNames, labelValues));
            return c == null ? 0 : c.count().sum();
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String help() {
            return help;
        }

        @Override
        public String type() {
            return "histogram";
        }

        @Override
        public void samples(StringBuilder out) {
            for (Map.Entry<List<String>, Child> e : sorted(children)) {
                Child c = e.getValue();
                long cumulative = 0;
                for (int i = 0; i <= bounds.length; i++) {
                    cumulative += c.buckets()[i].sum();
                    out.append(name).append("_bucket");
                    labelSet(out, labelNames, e.getKey(), "le", i < bounds.length ? number(bounds[i]) : "+Inf");
                    out.append(' ').append(cumulative).append('\n');
                }
                // The count is the +Inf bucket, so that the two never disagree within one scrape.
                out.append(name).append("_sum");
                labelSet(out, labelNames, e.getKey(), null, null);
                out.append(' ').append(number(c.sum().sum())).append('\n');
                out.append(name).append("_count");
                labelSet(out, labelNames, e.getKey(), null, null);
                out.append(' ').append(cumulative).append('\n');
            }
        }
    }

    private record Gauge(String name, String help, DoubleSupplier value) implements Family {
        @Override
        public String type() {
            return "gauge";
        }

        @Override
        public void samples(StringBuilder out) {
            out.append(name).append(' ').append(number(value.getAsDouble())).append('\n');
        }
    }

    private record CounterFunction(String name, String help, DoubleSupplier value) implements Family {
        @Override
        public String type() {
            return "counter";
        }

        @Override
        public void samples(StringBuilder out) {
            out.append(name).append(' ').append(number(value.getAsDouble())).append('\n');
        }
    }
}
