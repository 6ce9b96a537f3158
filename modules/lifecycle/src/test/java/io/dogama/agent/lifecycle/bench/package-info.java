/** Benchmarks of the lifecycle against the real engine, run by hand (see docs/lifecycle.md). */
package io.dogama.agent.lifecycle.bench;
