/** The per-instance state machine and the lifecycle operations. */
package io.dogama.agent.lifecycle;
