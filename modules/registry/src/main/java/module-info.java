/** The durable registry on Chronicle Map (SPEC section 9). */
module io.dogama.agent.registry {
    requires transitive io.dogama.agent.core;
    // Automatic module; its own dependencies (chronicle-core, -bytes, -values, compiler...) are not required
    // here because nothing in this module names their types.
    requires chronicle.map;
    // Chronicle's POSIX binding: only to choose the no-op one before Chronicle starts (ChronicleStartup).
    requires posix;

    exports io.dogama.agent.registry;
}
