/** JMH benchmarks of the registry (run by hand, see docs/bench-registry.md). */
package io.dogama.agent.registry.internal.bench;
