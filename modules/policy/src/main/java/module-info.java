/** Catalog, plan parsing, digest and validation (SPEC sections 5 to 8 and 11). */
module io.dogama.agent.policy {
    requires transitive io.dogama.agent.core;
    // Streaming parser with duplicate-key detection for the closed plan schema.
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.policy;
}
