/** Catalog, plan parsing, digest and validation (SPEC sections 5 to 8 and 11). */
module io.dogama.agent.policy {
    requires transitive io.dogama.agent.core;
    // Streaming parser: our own tree walk reports duplicate keys with their path (SPEC section 6).
    requires com.fasterxml.jackson.core;

    exports io.dogama.agent.policy;
}
