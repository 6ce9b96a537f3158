/** Implementation of the client: JSON mapping of the bodies; never exported. */
package io.dogama.agent.client.internal;
