/**
 * The agent's own metrics and their Prometheus text exposition (format 0.0.4). Written here rather
 * than taken from {@code io.prometheus:prometheus-metrics-*}: those jars (1.10.0) are automatic
 * modules (a manifest name, no module descriptor), which jlink refuses, and the runtime image is
 * built by jlink.
 */
module io.dogama.agent.metrics {
    exports io.dogama.agent.metrics;
}
