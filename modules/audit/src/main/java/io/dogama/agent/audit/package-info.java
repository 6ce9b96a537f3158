/** The audit log: events, the writer, verification. */
package io.dogama.agent.audit;
