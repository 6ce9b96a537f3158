/** Counters, gauges and histograms, and the text format they are scraped in. */
package io.dogama.agent.metrics;
