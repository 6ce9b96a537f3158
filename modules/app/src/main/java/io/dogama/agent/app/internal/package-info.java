/** Wiring, configuration loading and the self-check; nothing here is exported. */
package io.dogama.agent.app.internal;
