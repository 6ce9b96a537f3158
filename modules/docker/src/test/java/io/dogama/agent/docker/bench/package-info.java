/** A hand-run latency harness for the engine client. */
package io.dogama.agent.docker.bench;
