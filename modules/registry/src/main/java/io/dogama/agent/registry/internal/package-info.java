/** Implementation of the registry: the Chronicle Map store, the record codec, the MAC and the key file. */
package io.dogama.agent.registry.internal;
