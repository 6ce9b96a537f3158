/** Implementation of the audit log: line format and MAC chain, key file, writer thread, verifier; never exported. */
package io.dogama.agent.audit.internal;
