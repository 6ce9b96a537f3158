/** JMH benchmarks of the policy module, run by hand (see docs/bench-policy.md). */
package io.dogama.agent.policy.bench;
