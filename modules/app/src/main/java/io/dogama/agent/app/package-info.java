/** Composition root: configuration, wiring, start-up. */
package io.dogama.agent.app;
