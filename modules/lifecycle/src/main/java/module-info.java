/** The lifecycle state machine and operations (SPEC section 10). */
module io.dogama.agent.lifecycle {
    requires transitive io.dogama.agent.core;
    // Lifecycle.start takes a PlanPolicy, a Registry and a DockerEngine: their types are in this API.
    requires transitive io.dogama.agent.policy;
    requires transitive io.dogama.agent.registry;
    requires transitive io.dogama.agent.docker;
    requires squirrel.foundation;
    // squirrel is an automatic module: it reads slf4j but does not pull it into the graph.
    requires org.slf4j;

    exports io.dogama.agent.lifecycle;
    // squirrel instantiates the state machine class reflectively; only that class's package is open to it.
    opens io.dogama.agent.lifecycle.internal.machine to squirrel.foundation;
}
