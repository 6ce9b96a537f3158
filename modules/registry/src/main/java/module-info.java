/** The durable registry on Chronicle Map (SPEC section 9). */
module io.dogama.agent.registry {
    requires transitive io.dogama.agent.core;
    requires chronicle.map;

    exports io.dogama.agent.registry;
}
