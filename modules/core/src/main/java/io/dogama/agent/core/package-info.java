/** Shared value types of the agent; no behaviour beyond validation. */
package io.dogama.agent.core;
