/** The lifecycle state machine and the operations behind {@code AgentOperations}; never exported. */
package io.dogama.agent.lifecycle.internal;
