/** The durable registry: one append-only file of authenticated records (SPEC section 9). */
module io.dogama.agent.registry {
    requires transitive io.dogama.agent.core;

    exports io.dogama.agent.registry;
}
