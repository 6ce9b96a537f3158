/** Implementation of request authentication: parsing, canonical form, HMAC, nonce memory; never exported. */
package io.dogama.agent.auth.internal;
