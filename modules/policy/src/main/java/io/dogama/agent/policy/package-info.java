/** The deny-by-default core: catalog, plan parsing and digest, validation, the container-spec builder. */
package io.dogama.agent.policy;
