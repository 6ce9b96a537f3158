/** Composition root: reads the configuration, wires the modules, starts the agent. */
module io.dogama.agent.app {
    requires io.dogama.agent.core;
    requires io.dogama.agent.auth;
    requires io.dogama.agent.policy;
    requires io.dogama.agent.registry;
    requires io.dogama.agent.docker;
    requires io.dogama.agent.lifecycle;
    requires io.dogama.agent.http;
    requires io.dogama.agent.audit;
    requires io.dogama.agent.metrics;
    // heap and thread gauges (MemoryMXBean, ThreadMXBean)
    requires java.management;
    // the self-check's jackson-jr record round trip
    requires com.fasterxml.jackson.jr.ob;

    exports io.dogama.agent.app;
    // jackson-jr reads the self-check's record reflectively
    exports io.dogama.agent.app.internal to com.fasterxml.jackson.jr.ob;
}
