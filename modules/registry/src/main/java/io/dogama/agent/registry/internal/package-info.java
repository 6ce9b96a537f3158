/** Implementation of the registry: the log file, the record codec, the MAC and the key file. */
package io.dogama.agent.registry.internal;
