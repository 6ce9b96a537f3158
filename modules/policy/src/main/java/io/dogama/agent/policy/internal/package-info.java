/** Implementation of the policy module: JSON trees, canonical form, catalog loading, path rules, validator, spec builder. */
package io.dogama.agent.policy.internal;
