/** The durable, authenticated instance registry. */
package io.dogama.agent.registry;
